"""Deleting on the real peer: rows vanish from the index and branches become orphans."""

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.audit import trail
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index import sync
from hermes_ui.index.models import IndexedSession
from hermes_ui.web.links import session_url
from tests.lineage.helpers import box_with, edge_kinds, node_texts, svg_in
from tests.support.peers import endpoint_for

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def row(session_id):
    return IndexedSession.objects.get(endpoint="local", session_id=session_id)


def test_deleting_the_delegate_parent_vanishes_its_delegates_and_orphans_its_branch(
    fresh_peer, settings, login
):
    settings.HERMES_INDEX_CONTENT = False  # lineage only: no transcript is read
    endpoint = endpoint_for(settings, fresh_peer)
    sync.sync(endpoint, full=True)
    assert row(ids.DELEGATE_BRANCH).parent_session_id == ids.DELEGATE_PARENT

    HermesClient(endpoint).delete_session(ids.DELEGATE_PARENT, idempotency_key=mint_key())
    report = sync.sync(endpoint, full=True)

    assert report.counts.vanished == 4
    for gone in (ids.DELEGATE_PARENT, *ids.DELEGATE_CHILDREN, ids.DELEGATE_GRANDCHILD):
        assert row(gone).vanished_at is not None
    orphan = row(ids.DELEGATE_BRANCH)
    assert orphan.vanished_at is None and orphan.parent_session_id == ""
    assert (orphan.former_parent_id, orphan.kind) == (ids.DELEGATE_PARENT, "orphan")

    client = login("support")
    html = client.get(session_url("local", ids.DELEGATE_BRANCH, "lineage_page")).content.decode()
    svg = svg_in(html)
    assert "deleted session" in box_with(svg, ids.DELEGATE_PARENT[:20])
    assert "this session" in box_with(svg, ids.DELEGATE_BRANCH_TITLE)
    assert edge_kinds(svg) == ["orphan"] and len(node_texts(svg)) == 2
    listed = client.get("/e/local/sessions/?kind=orphan").content.decode()
    assert f'title="{ids.DELEGATE_BRANCH}"' in listed
    gone = client.get(session_url("local", ids.DELEGATE_PARENT, "lineage_page"))
    assert gone.status_code == 404


def test_a_deletion_made_through_the_dashboard_shows_without_a_sweep(fresh_peer, settings, users):
    """The audit trail names the deleted id; the next incremental refresh reads it back."""
    settings.HERMES_INDEX_CONTENT = False  # lineage only: no transcript is read
    endpoint = endpoint_for(settings, fresh_peer)
    sync.sync(endpoint, full=True)
    HermesClient(endpoint).delete_session(ids.COMPRESSION_C1, idempotency_key=mint_key())
    trail.record(
        users["admin"],
        capability="session_delete",
        endpoint="local",
        outcome="success",
        session_id=ids.COMPRESSION_C1,
    )
    report = sync.sync(endpoint, full=False)
    assert not report.full and report.list_calls <= 2
    assert row(ids.COMPRESSION_C1).vanished_at is not None
    # A compression continuation survives its parent's deletion, unlinked.
    tip = row(ids.COMPRESSION_TIP)
    assert (tip.former_parent_id, tip.kind) == (ids.COMPRESSION_C1, "orphan")
