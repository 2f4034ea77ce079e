"""hermes-agent 0.15.2's DELETE does not cascade: the case says so, and a follow-up
request removes the leftovers through the same four-eyes review."""

import pytest
from django.urls import reverse

from devtools.peer import demo_ids as ids
from hermes_ui.deletion import batch as batches
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest, Status
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.observed.models import Observation
from tests.deletion.helpers import decide, execute, page, refresh, request_deletion
from tests.jobs.helpers import follow
from tests.support.peers import endpoint_for

pytestmark = [pytest.mark.peer, pytest.mark.release, pytest.mark.usefixtures("jobs_db")]

DELEGATES = {*ids.DELEGATE_CHILDREN, ids.DELEGATE_GRANDCHILD}


def exists(client, session_id):
    try:
        client.get_session(session_id)
    except e.NotFound:
        return False
    return True


def test_incomplete_deletion_is_named_and_followed_up(peer_0152, settings, login, monkeypatch):
    endpoint = endpoint_for(settings, peer_0152)
    hermes = HermesClient(endpoint)
    support, admin, admin2 = login("support"), login("admin"), login("admin2")

    case = request_deletion(support, ids.DELEGATE_PARENT, "The user asked for erasure")
    assert set(case.cascade_ids) == DELEGATES
    before = page(admin, case.pk)
    # Nothing seen yet: the cascade is the contract's rule, checked afterwards.
    assert "by the contract's rule, 3 delegate sessions" in before
    assert 'id="cascade-rule"' in before and 'id="cascade-warning"' not in before
    assert decide(admin, case.pk).status_code == 302
    assert execute(admin2, case.pk).status_code == 302
    case = refresh(case)

    # Hermes 0.15.2 deleted the parent only.
    assert not exists(hermes, ids.DELEGATE_PARENT)
    assert all(exists(hermes, sid) for sid in DELEGATES)
    assert case.status == Status.EXECUTED and case.incomplete
    assert set(case.leftover_ids) == DELEGATES
    html = page(support, case.pk)
    assert "executed, incomplete" in html and 'id="leftovers"' in html
    for sid in DELEGATES:
        assert f'data-session="{sid}"' in html
    assert "now a root" in html
    assert "Survived, now roots" not in html and "None:" not in html
    queue = admin.get(reverse("deletion_queue")).content.decode()
    assert "executed, incomplete" in queue and "Still on Hermes" in queue
    assert all(sid[:20] in queue for sid in DELEGATES)
    seen = Observation.objects.get(endpoint="local", fact="delete_cascades")
    assert seen.holds is False and seen.source_ref == case.pk

    # The next request on this endpoint warns before approval.
    other = request_deletion(support, ids.DELEGATE_BRANCH, "Also erase the branch")
    assert f"deletion request #{case.pk}" in page(admin, other.pk)
    assert 'id="cascade-warning"' in page(admin, other.pk)

    # One click files the follow-up; it goes through the four-eyes review.
    filed = support.post(reverse("deletion_follow_up", kwargs={"pk": case.pk}))
    assert filed.status_code == 302
    batch = DeletionBatch.objects.get()
    assert filed["Location"] == reverse("deletion_batch", kwargs={"pk": batch.pk})
    assert sorted(m.session_id for m in batch.members.all()) == sorted(DELEGATES)
    assert f"#{batch.pk}" in page(support, case.pk)
    # A second click does not file a second request.
    support.post(reverse("deletion_follow_up", kwargs={"pk": case.pk}))
    assert DeletionBatch.objects.count() == 1
    assert all(exists(hermes, sid) for sid in DELEGATES)  # nothing deleted before review

    decision = {"decision": "approve", "policy_rule": "owner_request", "comment": "Leftovers"}
    # Support filed it; only an admin other than the requester may approve it.
    refused = support.post(reverse("deletion_batch_decide", kwargs={"pk": batch.pk}), decision)
    assert refused.status_code == 403
    assert not batch.members.filter(status=Status.APPROVED).exists()
    answer = follow(
        admin, admin.post(reverse("deletion_batch_decide", kwargs={"pk": batch.pk}), decision)
    )
    assert answer.status_code == 302
    assert all(m.status == Status.APPROVED for m in batch.members.all())
    ran = []
    monkeypatch.setattr(batches, "spawn", lambda pk, user: ran.append(user))
    admin2.post(reverse("deletion_batch_execute", kwargs={"pk": batch.pk}))
    batches.run(batch, ran[0])

    assert not any(exists(hermes, sid) for sid in DELEGATES)
    statuses = [m.status for m in DeletionRequest.objects.filter(batch=batch)]
    assert statuses == [Status.EXECUTED] * 3
    assert not any(m.incomplete for m in DeletionRequest.objects.filter(batch=batch))
    # Deleting a sibling member does not count as a cascade: the warning stays.
    assert Observation.objects.get(endpoint="local", fact="delete_cascades").holds is False
