"""A session archived on a real Hermes 0.19.0 (through its own state API) stays in the
index, marked archived (inferred); archived:yes finds it and the default index hides it."""

import subprocess

import pytest
from django.urls import reverse

from hermes_ui.index import archived
from hermes_ui.index.models import IndexedSession
from hermes_ui.web.links import session_url
from tests.support.peers import endpoint_for, index, make

pytestmark = [pytest.mark.django_db, pytest.mark.peer]

ARCHIVE = """
import os, sys
os.environ["HERMES_HOME"] = sys.argv[1]
from hermes_state import SessionDB
db = SessionDB()
assert db.set_session_archived(sys.argv[2], True)
db.close()
"""


def set_archived(peer, session_id: str) -> None:
    subprocess.run(
        [str(peer.config.peer_python), "-c", ARCHIVE, str(peer.home), session_id],
        check=True,
        timeout=60,
        capture_output=True,
    )


def index_page(client, q: str = "") -> str:
    answer = client.get(reverse("session_list", kwargs={"endpoint": "local"}), {"q": q})
    assert answer.status_code == 200
    return answer.content.decode()


def test_an_archived_root_is_marked_found_and_hidden_by_default(archive_peer, settings, login):
    endpoint = endpoint_for(settings, archive_peer)
    root = make(endpoint, "archive-me", title="Archive me", chat=True)
    parent = make(endpoint, "archive-parent", title="Archive parent")
    kept = make(endpoint, "stays-listed", title="Stays listed")
    index(endpoint)
    support = login("support")
    assert root.id in index_page(support) and kept.id in index_page(support)

    set_archived(archive_peer, root.id)
    index(endpoint)  # a full sweep: the row left both lists, a read by id still answers
    row = IndexedSession.objects.get(session_id=root.id)
    assert row.listed is False and row.vanished_at is None

    default = index_page(support)
    assert kept.id in default and f'href="{session_url("local", root.id)}"' not in default
    found = index_page(support, "archived:yes")
    assert f'href="{session_url("local", root.id)}"' in found
    assert kept.id not in found and parent.id not in found
    assert "badge-kind-archived" in found and archived.LABEL in found
    explicit_no = index_page(support, "archived:no")
    assert kept.id in explicit_no and f'href="{session_url("local", root.id)}"' not in explicit_no

    page = support.get(session_url("local", root.id)).content.decode()
    assert 'id="archived-note"' in page and archived.LABEL in page
    assert "Restore is not in the Hermes API" in page
    # A listed session's page says nothing of it.
    assert 'id="archived-note"' not in support.get(session_url("local", kept.id)).content.decode()


def test_archived_yes_is_a_filter_with_a_clear_error():
    assert archived.parse("YES") is True and archived.parse("no") is False
    with pytest.raises(ValueError, match="yes or no"):
        archived.parse("maybe")


def test_a_hidden_child_is_not_called_archived():
    """A continuation or delegate the lists skip is not archived: only a root is."""
    assert archived.is_archived({"listed": False, "parent_session_id": ""})
    assert not archived.is_archived({"listed": False, "parent_session_id": "p"})
    assert not archived.is_archived({"listed": True, "parent_session_id": ""})
