"""Four eyes on retention's batches, against a real Hermes: one admin alone deletes nothing.

Whoever presses "File a batch now" is the batch's requester; the rule's last
editor shaped what it matches. Neither may approve it, whatever they edited
first, so the admin who pressed never reaches an executed DELETE alone.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from hermes_ui.access.grants import set_role
from hermes_ui.audit.models import AuditEvent
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest, Status
from hermes_ui.hermes import errors as e
from hermes_ui.retention import runs
from hermes_ui.retention.models import RetentionRule
from tests.retention.test_peer_retention import add_rule, decide_batch, execute_batch, file_now
from tests.support.peers import read

pytestmark = [pytest.mark.peer, pytest.mark.usefixtures("jobs_db")]


@pytest.fixture
def admin3(django_user_model):
    user = django_user_model.objects.create_user("admin3", password="x")
    set_role(user, "admin")
    return user


def refused_alone(client, batch, endpoint, ids) -> None:
    """``client`` can neither approve nor execute ``batch``; Hermes still has every session."""
    answer = decide_batch(client, batch)
    assert answer.status_code == 403, answer.status_code
    assert 'data-code="self_approval"' in answer.content.decode()
    executed = client.post(reverse("deletion_batch_execute", kwargs={"pk": batch.pk}))
    assert executed.status_code == 409
    assert all(m.status == Status.PENDING for m in batch.members.all())
    for sid in ids:
        assert read(endpoint, sid).id == sid


def test_the_admin_who_presses_file_now_is_the_requester_and_cannot_approve(
    aged, login, users, admin3, monkeypatch
):
    endpoint, ids = aged
    author, presser = login("admin2"), login("admin")
    rule = add_rule(author)  # admin2 last saved the rule
    run = file_now(presser, rule)
    batch = DeletionBatch.objects.get(pk=run.batch_id)
    assert batch.requester == users["admin"] and batch.selected_by == users["admin2"]
    assert {m.requester_id for m in batch.members.all()} == {users["admin"].pk}
    filed = AuditEvent.objects.get(capability="retention.run")
    assert filed.username == "admin" and filed.evidence["editor"] == "admin2"

    # Neither the presser nor the rule's author may approve: one of them alone deletes nothing.
    refused_alone(presser, batch, endpoint, ids["due"])
    refused_alone(author, batch, endpoint, ids["due"])

    # A third admin's approval is the second pair of eyes; then the presser may execute.
    from django.test import Client

    third = Client()
    third.force_login(admin3)
    decide_batch(third, batch)
    assert all(m.status == Status.APPROVED for m in batch.members.all())
    execute_batch(presser, batch, monkeypatch)
    for sid in ids["due"]:
        with pytest.raises(e.NotFound):
            read(endpoint, sid)


def test_editing_the_rule_first_makes_the_presser_its_author_too(aged, login, users):
    endpoint, ids = aged
    other, presser = login("admin2"), login("admin")
    rule = add_rule(other, query="source:telegram")  # matches nothing old enough to matter
    # The presser widens the rule to the cron sessions, then files at once.
    answer = presser.post(
        reverse("retention_rule", kwargs={"endpoint": "local", "rule": rule.pk}),
        {"name": rule.name, "query": "source:cron", "age_days": 30, "active": "on"},
    )
    assert answer.status_code == 302
    run = file_now(presser, rule)
    batch = DeletionBatch.objects.get(pk=run.batch_id)
    assert batch.requester == users["admin"] and batch.selected_by == users["admin"]
    refused_alone(presser, batch, endpoint, ids["due"])
    # The rule's earlier author did not shape this batch: their approval is the second pair.
    decide_batch(other, batch)
    assert all(m.status == Status.APPROVED for m in batch.members.all())


def test_the_daily_run_files_for_the_rules_last_editor_who_cannot_approve(aged, login, users):
    endpoint, ids = aged
    admin = login("admin")
    rule = add_rule(admin)
    RetentionRule.objects.filter(pk=rule.pk).update(
        last_run_at=timezone.now() - timedelta(days=1, minutes=1)
    )
    assert runs.run_due(endpoint) == 1
    batch = DeletionBatch.objects.get(pk=rule.runs.first().batch_id)
    assert batch.requester == users["admin"] and batch.selected_by == users["admin"]
    refused_alone(admin, batch, endpoint, ids["due"])
    assert not DeletionRequest.objects.filter(status=Status.EXECUTED).exists()
