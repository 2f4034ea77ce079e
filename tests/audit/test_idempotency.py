"""The replay boundary: one Hermes call per submission, whatever the browser does."""

import threading

import pytest
from django.db import close_old_connections

from hermes_ui.audit import idempotency as idem
from hermes_ui.audit.models import AuditEvent, IdempotencyRecord, Outcome

pytestmark = pytest.mark.django_db(transaction=True)


def counting(outcome=Outcome.SUCCESS, delay=0.0):
    calls = []

    def perform(key):
        calls.append(key)
        if delay:
            import time

            time.sleep(delay)
        return idem.Result(
            outcome,
            http_status=200,
            result={"id": "child-1"},
            evidence={"session_id": "s1", "title": "secret title"},
        )

    return perform, calls


def submit(user, perform, key="k" * 22, inputs=None):
    return idem.run_once(
        capability="session_fork",
        endpoint_id="local",
        form_key=key,
        inputs=inputs or {"title": "A"},
        user=user,
        perform=perform,
        session_id="s1",
    )


def test_a_repeat_returns_the_recorded_outcome_without_calling_again(users):
    perform, calls = counting()
    first = submit(users["reviewer"], perform)
    second = submit(users["reviewer"], perform)
    assert len(calls) == 1
    assert first.ok and not first.replayed
    assert second.ok and second.replayed
    assert second.result == {"id": "child-1"}
    assert calls[0] == first.key == second.key


def test_a_changed_form_is_a_new_intent_with_a_fresh_key(users):
    perform, calls = counting()
    a = submit(users["reviewer"], perform, inputs={"title": "A"})
    b = submit(users["reviewer"], perform, inputs={"title": "B"})
    assert len(calls) == 2
    assert a.key != b.key


def test_concurrent_repeats_wait_for_the_first_and_share_its_outcome(users):
    perform, calls = counting(delay=0.3)
    results, errors = [], []

    def worker():
        try:
            results.append(submit(users["reviewer"], perform))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            close_old_connections()

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(calls) == 1
    assert len(results) == 20
    assert sum(not r.replayed for r in results) == 1
    assert all(r.ok for r in results)


def test_uncertain_outcomes_are_recorded_as_such(users):
    perform, calls = counting(Outcome.UNCERTAIN)
    first = submit(users["reviewer"], perform)
    again = submit(users["reviewer"], perform)
    assert first.uncertain and again.uncertain and len(calls) == 1


def test_a_crash_inside_perform_is_recorded_uncertain(users):
    def perform(key):
        raise RuntimeError("bug")

    with pytest.raises(RuntimeError):
        submit(users["reviewer"], perform)
    record = IdempotencyRecord.objects.get()
    assert record.outcome == Outcome.UNCERTAIN


@pytest.mark.parametrize("bad", ["", "short", "x" * 65, "has space in it!!", None])
def test_forged_or_missing_keys_are_refused(users, bad):
    perform, calls = counting()
    with pytest.raises(idem.BadKey):
        submit(users["reviewer"], perform, key=bad)
    assert calls == []


def test_records_expire_after_24_hours(users):
    from datetime import timedelta

    from django.utils import timezone

    perform, calls = counting()
    submit(users["reviewer"], perform)
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=25))
    submit(users["reviewer"], perform)
    assert len(calls) == 2


def test_audit_events_hold_no_user_text(users):
    perform, _ = counting()
    submit(users["reviewer"], perform)
    submit(users["reviewer"], perform)
    # The grants that made the users are audited too (access.grant): not the ones here.
    events = list(AuditEvent.objects.exclude(capability__startswith="access.").order_by("id"))
    assert [e.evidence.get("replayed") for e in events] == [None, True]
    for event in events:
        assert "secret title" not in str(event.evidence)
        assert event.evidence["title"]["length"] == len("secret title")
    assert "secret title" not in str(list(IdempotencyRecord.objects.values()))
