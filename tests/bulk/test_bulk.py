"""Bulk close and bulk deletion against two real peers, through the views."""

import re
import secrets

import pytest
from django.urls import reverse

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent
from hermes_ui.deletion import batch as batches
from hermes_ui.deletion.models import DeletionBatch, Status
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.web.links import session_url
from tests.deletion.helpers import decide
from tests.jobs.helpers import follow
from tests.support.peers import index, make, read

# Bulk close, filing a bulk deletion and its review run as jobs on threads of their own.
pytestmark = [pytest.mark.peer, pytest.mark.usefixtures("jobs_db")]

_KEY = re.compile(r'name="key"[^>]*value="([A-Za-z0-9_-]+)"')


def tag(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


def test_bulk_close_of_three_sessions_stays_on_its_endpoint(endpoints, login):
    a, b = endpoints["a"], endpoints["b"]
    ids = [tag("close") for _ in range(3)]
    for sid in ids:
        make(b, sid, title=f"b {sid}")
    make(a, ids[0], title=f"a {ids[0]}")  # the same id on the other endpoint
    index(b)
    support = login("support")
    url = reverse("bulk_close", kwargs={"endpoint": "b"})
    review = support.post(url, {"ids": ids})
    assert review.status_code == 200
    html = review.content.decode()
    assert all(sid in html for sid in ids) and f"a {ids[0]}" not in html
    key = _KEY.search(html).group(1)
    # The POST answers at once with the job's progress page, which ends on the results.
    form = {"ids": ids, "stage": "confirm", "key": key, "reason": "resolved"}
    done = follow(support, support.post(url, form))
    assert done.status_code == 200
    assert done.content.decode().count('data-verdict="closed"') == 3
    assert all(read(b, sid).end_reason == "resolved" for sid in ids)
    assert read(a, ids[0]).end_reason is None  # a's session with that id is untouched
    events = AuditEvent.objects.filter(capability="session_patch", session_id__in=ids)
    assert events.count() == 3 and {ev.endpoint for ev in events} == {"b"}
    assert len({ev.idempotency_key for ev in events}) == 3
    # The same form again replays each session's recorded outcome; nothing is sent twice.
    again = follow(support, support.post(url, form))
    assert again.content.decode().count("already submitted") == 3


def test_select_all_matching_is_resolved_on_the_server_and_bounded(endpoints, login, settings):
    a = endpoints["a"]
    prefix = tag("all")
    ids = [f"{prefix}-{n}" for n in range(3)]
    for sid in ids:
        make(a, sid)
    index(a)
    settings.HERMES_BULK_LIMIT = 2
    review = login("support").post(
        reverse("bulk_close", kwargs={"endpoint": "a"}), {"all": "1", "q": prefix}
    )
    html = review.content.decode()
    assert review.status_code == 200 and 'id="selection-truncated"' in html
    assert len(re.findall(r'name="ids" value="' + prefix, html)) == 2


def test_bulk_deletion_of_five_with_one_changed_after_approval(endpoints, login, monkeypatch):
    a, b = endpoints["a"], endpoints["b"]
    ids = [tag("bulkdel") for _ in range(5)]
    for sid in ids:
        make(a, sid, chat=True)
    make(b, ids[0])  # the same id on b must survive
    index(a)
    support, admin, admin2 = login("support"), login("admin"), login("admin2")
    form = {"ids": ids, "stage": "confirm", "reason": "Test data clean-up"}
    filed = follow(support, support.post(reverse("bulk_delete", kwargs={"endpoint": "a"}), form))
    assert filed.status_code == 302, filed.content.decode()[:1000]
    batch = DeletionBatch.objects.get()
    assert filed["Location"] == reverse("deletion_batch", kwargs={"pk": batch.pk})
    members = list(batch.members.all())
    assert sorted(m.session_id for m in members) == sorted(ids)
    assert all(m.snapshot["active_message_count"] == 2 and m.endpoint == "a" for m in members)
    # One member alone cannot be approved: the request is reviewed as a whole.
    assert decide(admin, members[0].pk).status_code == 409
    batch_url = reverse("deletion_batch_decide", kwargs={"pk": batch.pk})
    decision = {"decision": "approve", "policy_rule": "test_or_duplicate", "comment": "Checked"}
    answer = follow(admin, admin.post(batch_url, decision))
    assert answer.status_code == 302
    assert all(m.status == Status.APPROVED for m in batch.members.all())

    # One session changes after the approval.
    client = HermesClient(a)
    try:
        client.patch_session(ids[2], idempotency_key=mint_key(), title=f"changed {ids[2]}")
    finally:
        client.close()

    ran = []
    monkeypatch.setattr(batches, "spawn", lambda pk, user: ran.append((pk, user)))
    started = admin2.post(reverse("deletion_batch_execute", kwargs={"pk": batch.pk}))
    assert started.status_code == 302 and len(ran) == 1
    batch.refresh_from_db()
    progress = admin2.get(
        reverse("deletion_batch", kwargs={"pk": batch.pk}), headers={"HX-Request": "true"}
    ).content.decode()
    assert 'id="batch-progress"' in progress and "0 of 5 done" in progress
    assert 'hx-trigger="every 1s"' in progress
    # A second press does not start a second run.
    admin.post(reverse("deletion_batch_execute", kwargs={"pk": batch.pk}))
    assert len(ran) == 1
    batches.run(batch, ran[0][1])  # what the thread runs

    statuses = {m.session_id: m.status for m in batch.members.all()}
    assert statuses[ids[2]] == Status.VOID
    assert sorted(s for sid, s in statuses.items() if sid != ids[2]) == [Status.EXECUTED] * 4
    for sid in ids:
        if sid == ids[2]:
            assert read(a, sid).id == sid
        else:
            with pytest.raises(e.NotFound):
                read(a, sid)
    assert read(b, ids[0]).id == ids[0]  # never outside the endpoint
    page = admin.get(reverse("deletion_batch", kwargs={"pk": batch.pk})).content.decode()
    assert page.count('data-verdict="deleted"') == 4 and page.count('data-verdict="void"') == 1
    assert "4 deleted, 1 void" in page
    deletes = AuditEvent.objects.filter(capability="session_delete", outcome="success")
    assert sorted(deletes.values_list("session_id", flat=True)) == sorted(
        sid for sid in ids if sid != ids[2]
    )


def test_one_id_on_both_endpoints_shows_each_endpoints_row(endpoints, login):
    a, b = endpoints["a"], endpoints["b"]
    sid = tag("twin")
    make(a, sid, title=f"title-on-a {sid}")
    make(b, sid, title=f"title-on-b {sid}")
    index(a)
    index(b)
    support = login("support")
    pages = {
        "session": lambda ep: session_url(ep, sid),
        "index": lambda ep: reverse("session_list", kwargs={"endpoint": ep}) + f"?q={sid}&table=on",
        "deletion form": lambda ep: (
            reverse("deletion_new", kwargs={"endpoint": ep}) + f"?session={sid}"
        ),
    }
    for name, url in pages.items():
        for mine, other in (("a", "b"), ("b", "a")):
            html = support.get(url(mine)).content.decode()
            assert f"title-on-{mine}" in html and f"title-on-{other}" not in html, (name, mine)
    index_page = support.get(
        reverse("session_list", kwargs={"endpoint": "b"}) + f"?q={sid}&table=on"
    )
    html = index_page.content.decode()
    assert f'name="ids" value="{sid}"' in html and 'id="select-all-matching"' in html
    assert reverse("bulk_close", kwargs={"endpoint": "b"}) in html
    for mine, other in (("a", "b"), ("b", "a")):
        review = support.post(reverse("bulk_delete", kwargs={"endpoint": mine}), {"ids": [sid]})
        html = review.content.decode()
        assert f"title-on-{mine}" in html and f"title-on-{other}" not in html
