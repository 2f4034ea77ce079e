"""One endpoint id, two real Hermes servers: the index belongs to one database.

The same id ``local`` is pointed at peer A, then at peer B (as an operator
who moves an id, or a newcomer who ran the demo first). Afterwards the index,
search, lineage and fork memory show B's sessions only, and the index page
says the server changed.
"""

import logging

import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index import sync
from hermes_ui.index.forks import forked_child_ids
from hermes_ui.index.models import IndexedSession, KnownFork
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import queries
from hermes_ui.web.links import session_url
from tests.changes.conftest import form_key, unique

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def point_local_at(settings, peer) -> Endpoint:
    endpoint = Endpoint("local", peer.base_url, peer.key)
    settings.HERMES_ENDPOINTS = {"local": endpoint}
    settings.HERMES_ENDPOINT_ID = "local"
    return endpoint


def sessions_with_a_fork(endpoint: Endpoint, reviewer, label: str) -> tuple[str, str, str]:
    """Two sessions on the endpoint's Hermes, one forked through the dashboard."""
    client = HermesClient(endpoint)
    try:
        parent, loner = unique(f"{label}-parent"), unique(f"{label}-loner")
        client.create_session(idempotency_key=mint_key(), session_id=parent, title=parent)
        client.chat(parent, message="hello")
        client.create_session(idempotency_key=mint_key(), session_id=loner, title=loner)
    finally:
        client.close()
    url = session_url("local", parent, "session_fork")
    page = reviewer.get(url)
    assert page.status_code == 200
    child = unique(f"{label}-child")
    answer = reviewer.post(
        url, {"key": form_key(page.content.decode()), "child_id": child, "title": child}
    )
    assert answer.status_code == 302, answer.content.decode()[:500]
    return parent, loner, child


def search_ids(endpoint: Endpoint, q: str = "") -> set[str]:
    return {row["id"] for row in queries.search(endpoint, snapshot=0, q=q, limit=500).rows}


def test_re_pointing_an_id_shows_only_the_new_servers_sessions(
    fresh_peer_pair, settings, login, caplog
):
    peer_a, peer_b = fresh_peer_pair
    reviewer = login("reviewer")

    # Peer A behind "local": sessions, a fork through the dashboard, a full index.
    ep_a = point_local_at(settings, peer_a)
    a_parent, a_loner, a_child = sessions_with_a_fork(ep_a, reviewer, "aaa")
    assert not sync.sync(ep_a, full=True).error_code
    assert {a_parent, a_loner, a_child} <= search_ids(ep_a)
    assert forked_child_ids(ep_a) == {a_child}
    page = reviewer.get("/e/local/sessions/?q=aaa-&table=on").content.decode()
    assert a_loner in page and 'id="index-moved"' not in page

    # The same id, now peer B.
    ep_b = point_local_at(settings, peer_b)
    assert ep_b.fingerprint != ep_a.fingerprint
    b_parent, b_loner, b_child = sessions_with_a_fork(ep_b, reviewer, "bbb")

    # Before any sync: none of A's rows is shown as B's, and the page says why.
    page = reviewer.get("/e/local/sessions/").content.decode()
    assert 'id="index-moved"' in page
    assert peer_b.base_url in page and peer_a.base_url in page
    assert a_loner not in page and a_parent not in page

    with caplog.at_level(logging.WARNING, logger="hermes_ui.index"):
        report = sync.sync(ep_b, full=True)
    assert not report.error_code
    moved = [r.getMessage() for r in caplog.records if "now points at" in r.getMessage()]
    assert len(moved) == 1
    assert peer_b.base_url in moved[0] and peer_a.base_url in moved[0]
    assert peer_a.key not in moved[0] and peer_b.key not in moved[0]

    # Index and search: B's sessions only, and A's rows are gone from the table.
    assert search_ids(ep_b) == {b_parent, b_loner, b_child}
    assert search_ids(ep_b, "aaa-") == set()
    assert not IndexedSession.objects.filter(endpoint_fp=ep_a.fingerprint).exists()
    page = reviewer.get("/e/local/sessions/").content.decode()
    assert 'id="index-moved"' in page and "dropped" in page
    assert b_loner in page and a_loner not in page
    assert "3 sessions" in page
    found = reviewer.get("/e/local/sessions/?q=aaa-&table=on").content.decode()
    assert not any(session_id in found for session_id in (a_parent, a_loner, a_child))

    # Fork memory: A's fork is kept (with its server) but never shown as B's.
    assert forked_child_ids(ep_b) == {b_child}
    assert KnownFork.objects.filter(child_id=a_child, endpoint_fp=ep_a.fingerprint).exists()

    # Lineage: B's lineage draws B's fork; A's sessions are not B's.
    lineage = reviewer.get(session_url("local", b_parent, "lineage_page") + "?as=list")
    html = lineage.content.decode()
    assert lineage.status_code == 200 and b_child in html and a_child not in html
    gone = reviewer.get(session_url("local", a_parent, "lineage_page"))
    assert gone.status_code == 404

    # The audit trail keeps both forks, each with the server it was made on.
    urls = dict(
        AuditEvent.objects.filter(capability="session_fork").values_list("session_id", "base_url")
    )
    assert urls == {a_parent: peer_a.base_url, b_parent: peer_b.base_url}
