"""Retention rules against a real Hermes: a rule files one batch, a second admin approves.

The peer holds cron and telegram sessions of several ages (``seed_ages.py``):
``source:cron`` older than 30 days must propose exactly the old, unprotected
cron sessions, spare the protected ones with their reasons, delete nothing
before a second admin approves, and hold a session protected after filing.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from hermes_ui.deletion import batch as batches
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest, Status
from hermes_ui.hermes import errors as e
from hermes_ui.index.models import IndexedSession
from hermes_ui.retention import runs
from hermes_ui.retention.models import KeepTag, RetentionRule, RetentionRun
from hermes_ui.review.models import Item, Note, Queue, Rubric
from hermes_ui.tags.models import SessionTag, Tag
from tests.jobs.helpers import follow
from tests.support.peers import read

# A batch's review runs as a background job (``tests/jobs/helpers.follow`` waits for it).
pytestmark = [pytest.mark.peer, pytest.mark.usefixtures("jobs_db")]


def protect(endpoint, ids, users):
    """Tag, queue and note the sessions the seed names for it."""
    keep = Tag.objects.create(name="legal-hold")
    KeepTag.objects.create(tag=keep, added_by_name="admin")
    for sid in (ids["keep"], ids["dchild"]):
        SessionTag.objects.create(**endpoint.scope(), session_id=sid, tag=keep)
    rubric = Rubric.objects.create(name="retention rubric")
    queue = Queue.objects.create(**endpoint.scope(), name="hold queue", rubric=rubric)
    Item.objects.create(**endpoint.scope(), session_id=ids["queued"], queue=queue)
    Note.objects.create(
        **endpoint.scope(),
        session_id=ids["noted"],
        author=users["support"],
        author_name="s",
        body="x",
    )
    return keep


def add_rule(admin, name="cron after 30 days", query="source:cron", age=30):
    answer = admin.post(
        reverse("retention_rules", kwargs={"endpoint": "local"}),
        {"name": name, "query": query, "age_days": age, "active": "on"},
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    return RetentionRule.objects.get(name=name)


def file_now(client, rule) -> RetentionRun:
    answer = client.post(
        reverse("retention_run_now", kwargs={"endpoint": "local", "rule": rule.pk})
    )
    assert answer.status_code == 302
    return rule.runs.first()


def decide_batch(client, batch, decision="approve"):
    """The review's answer: a refusal at once, else its job's page once it finished."""
    answer = client.post(
        reverse("deletion_batch_decide", kwargs={"pk": batch.pk}),
        {
            "decision": decision,
            "policy_rule": "retention_expired" if decision == "approve" else "still_in_use",
            "comment": "Checked the run",
        },
    )
    return answer if answer.status_code != 303 else follow(client, answer)


def execute_batch(client, batch, monkeypatch):
    ran = []
    monkeypatch.setattr(batches, "spawn", lambda pk, user: ran.append((pk, user)))
    answer = client.post(reverse("deletion_batch_execute", kwargs={"pk": batch.pk}))
    assert answer.status_code == 302 and len(ran) == 1
    batches.run(DeletionBatch.objects.get(pk=batch.pk), ran[0][1])  # what the thread runs


def test_a_cron_rule_files_one_batch_sparing_protected_sessions_with_reasons(
    aged, login, users, monkeypatch
):
    endpoint, ids = aged
    protect(endpoint, ids, users)
    admin, admin2 = login("admin"), login("admin2")
    rule = add_rule(admin)

    preview = admin.get(
        reverse("retention_preview", kwargs={"endpoint": "local", "rule": rule.pk})
    ).content.decode()
    assert "nothing is filed" in preview and DeletionBatch.objects.count() == 0

    run = file_now(admin, rule)
    batch = DeletionBatch.objects.get(pk=run.batch_id)
    proposed = sorted(m.session_id for m in batch.members.all())
    assert proposed == sorted([*ids["due"], ids["late"]])
    assert {p["id"]: p["why"] for p in run.protected} == {
        ids["keep"]: "keep_tag",
        ids["queued"]: "review_item",
        ids["noted"]: "note",
        ids["chain_root"]: "tip_kept",
        ids["dparent"]: "delegate_protected",
    }
    page = admin2.get(reverse("deletion_batch", kwargs={"pk": batch.pk})).content.decode()
    assert 'id="retention-panel"' in page and "4 cron" in page
    assert f'data-session="{ids["chain_root"]}" data-why="tip_kept"' in page

    # The admin who filed it (the rule's author) cannot approve it.
    assert decide_batch(admin, batch).status_code == 403
    assert all(m.status == Status.PENDING for m in batch.members.all())
    for sid in proposed:
        assert read(endpoint, sid).id == sid  # nothing deleted before the approval

    decide_batch(admin2, batch)
    assert all(m.status == Status.APPROVED for m in batch.members.all())
    # Protected after filing: tagged keep between the approval and the execution.
    late = SessionTag.objects.create(
        **endpoint.scope(), session_id=ids["late"], tag=Tag.objects.get(name="legal-hold")
    )
    execute_batch(admin2, batch, monkeypatch)
    statuses = {m.session_id: m for m in batch.members.all()}
    assert statuses[ids["late"]].status == Status.VOID
    assert "Protected since retention run" in statuses[ids["late"]].status_note
    assert read(endpoint, ids["late"]).id == ids["late"]
    for sid in ids["due"]:
        assert statuses[sid].status == Status.EXECUTED
        with pytest.raises(e.NotFound):
            read(endpoint, sid)
        # Erased from every local table: the index, and the run's own records.
        assert not IndexedSession.objects.filter(session_id=sid).exists()
    assert late.pk  # the tag that held it is still there
    for sid in (ids["keep"], ids["queued"], ids["noted"], ids["chain_root"], ids["dparent"]):
        assert read(endpoint, sid).id == sid


def test_a_rejected_batch_deletes_nothing_and_the_next_days_run_proposes_again(
    aged, login, monkeypatch
):
    endpoint, ids = aged
    admin, admin2 = login("admin"), login("admin2")
    rule = add_rule(admin)
    first = file_now(admin, rule)
    batch = DeletionBatch.objects.get(pk=first.batch_id)
    decide_batch(admin2, batch, "reject")
    assert all(m.status == Status.REJECTED for m in batch.members.all())
    for sid in ids["due"]:
        assert read(endpoint, sid).id == sid

    # Not due again within the day; due a day later, and the rule still holds.
    assert runs.run_due(endpoint) == 0
    RetentionRule.objects.filter(pk=rule.pk).update(
        last_run_at=timezone.now() - timedelta(days=1, minutes=1)
    )
    assert runs.run_due(endpoint) == 1
    second = rule.runs.first()
    assert second.pk != first.pk and second.batch_id != first.batch_id
    again = DeletionBatch.objects.get(pk=second.batch_id)
    proposed = sorted(m.session_id for m in batch.members.all())
    assert sorted(m.session_id for m in again.members.all()) == proposed
    assert set(ids["due"]) <= set(proposed) and ids["chain_root"] not in proposed


def test_a_new_run_supersedes_an_approved_batch_that_was_never_executed(aged, login):
    endpoint, ids = aged
    admin, admin2 = login("admin"), login("admin2")
    rule = add_rule(admin)
    first = file_now(admin, rule)
    old = DeletionBatch.objects.get(pk=first.batch_id)
    decide_batch(admin2, old)
    assert all(m.status == Status.APPROVED for m in old.members.all())
    second = file_now(admin, rule)
    first.refresh_from_db()
    assert first.superseded_by_id == second.pk
    assert all(m.status == Status.VOID for m in old.members.all())
    assert all("Superseded by retention run" in m.status_note for m in old.members.all())
    # Executing the stale batch sends nothing: no member is approved any more.
    answer = admin2.post(reverse("deletion_batch_execute", kwargs={"pk": old.pk}))
    assert answer.status_code == 409
    for sid in ids["due"]:
        assert read(endpoint, sid).id == sid
    assert not DeletionRequest.objects.filter(status=Status.EXECUTED).exists()
