"""Twenty concurrent submits of one fork form, through uvicorn, make exactly one fork."""

import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from hermes_ui.changes.reconcile import children_of
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.changes.conftest import csrf_of, form_key, http_login, make_session, unique

pytestmark = pytest.mark.peer
SUBMITS = 20


def test_twenty_concurrent_submits_of_one_fork_form_make_one_fork(changes_dashboard, changes_peer):
    peer = HermesClient(Endpoint("local", changes_peer.base_url, changes_peer.key))
    parent = make_session(peer, title=unique("Race"), chat="hello")
    url = session_url("local", parent["id"], "session_fork")
    with httpx.Client(base_url=changes_dashboard.base_url, timeout=60) as http:
        http_login(http, "reviewer")
        form = http.get(url)
        assert form.status_code == 200
        data = {
            "csrfmiddlewaretoken": csrf_of(form.text),
            "key": form_key(form.text),
            "child_id": "",
            "title": "",
        }
        start = threading.Barrier(SUBMITS)

        def submit(_):
            start.wait()  # all twenty leave together: a double click, times ten
            return http.post(url, data=data)

        with ThreadPoolExecutor(SUBMITS) as pool:
            answers = list(pool.map(submit, range(SUBMITS)))
        assert [a.status_code for a in answers] == [302] * SUBMITS
        outcomes = [http.get(a.headers["location"]).text for a in answers]
    children = children_of(peer, parent["id"])
    assert len(children) == 1  # the administrative list holds exactly one fork
    child_id = children[0].id
    for page in outcomes:
        assert f'href="{session_url("local", child_id)}"' in page
    assert sum('id="replay-note"' in page for page in outcomes) == SUBMITS - 1
    peer.close()
