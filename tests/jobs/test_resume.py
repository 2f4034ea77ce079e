"""A bulk close resumed after its worker died: the close in flight is reconciled, never resent."""

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from hermes_ui.audit import idempotency
from hermes_ui.audit.models import AuditEvent, IdempotencyRecord
from hermes_ui.background.jobs.models import Job
from hermes_ui.background.workers import recovery
from hermes_ui.bulk import close, close_job
from hermes_ui.hermes.client import HermesClient
from hermes_ui.search.selection import member_key
from tests.jobs.conftest import read
from tests.support.tasks import drain

pytestmark = [pytest.mark.peer]
KEY = "resume-form-key-0123456789"


def orphan_record(user, session_id: str, size: int) -> None:
    """What a worker killed mid-PATCH leaves: the record claimed, its outcome never written."""
    inputs = {"op": "close", "end_reason": "resolved", "bulk": size, "session_id": session_id}
    IdempotencyRecord.objects.create(
        capability="session_patch",
        endpoint="local",
        key=idempotency.effective_key(member_key(KEY, session_id), inputs),
        user=user,
        session_id=session_id,
    )


def test_a_resumed_close_reconciles_the_call_in_flight_and_sends_only_what_never_landed(
    transactional_db, make_sessions, gate, users, peer_endpoint
):
    support = users["support"]
    ids = make_sessions(4)
    done, landed, lost, untouched = ids
    # The dead worker: closed the first, and died with two PATCHes in flight, of which
    # Hermes applied one (the answer never came back) and never got the other.
    first = next(close.close_each(peer_endpoint, support, [done], "resolved", KEY, size=4))
    orphan_record(support, landed, 4)
    orphan_record(support, lost, 4)
    direct = HermesClient(peer_endpoint)
    direct.patch_session(landed, idempotency_key="direct-" + landed, end_reason="resolved")
    direct.close()
    job = Job.objects.create(
        kind="bulk_close",
        **peer_endpoint.scope(),
        user=support,
        key=close_job.key_for(peer_endpoint, ids, "resolved", KEY),
        state="running",
        done=1,
        total=4,
        result={"rows": [vars(first)]},
        params={"ids": ids, "end_reason": "resolved", "key": KEY},
        runner="dead-worker",
        started_at=timezone.now(),
    )
    task = close_job.close_sessions.enqueue(job.pk)
    DBTaskResult.objects.filter(pk=task.id).update(
        status="RUNNING", worker_ids=["dead-worker"], started_at=timezone.now()
    )
    sent_before = gate.count("PATCH")

    assert recovery.requeue_orphans() == [task.id]  # no heartbeat row: the worker is gone
    drain()  # runs it (and any round the flush before this test queued)
    assert DBTaskResult.objects.get(pk=task.id).status == "SUCCESSFUL"

    job.refresh_from_db()
    assert (job.state, job.done) == ("done", 4)
    assert [row["session_id"] for row in job.rows] == ids  # each once, in order
    assert [row["verdict"] for row in job.rows] == ["closed"] * 4
    # Only the close that never landed and the one never tried reached Hermes now.
    assert gate.count("PATCH") - sent_before == 2
    assert all(read(peer_endpoint, sid).end_reason == "resolved" for sid in ids)
    evidence = {
        sid: [
            (e.outcome, e.evidence.get("reconciled", False), e.evidence.get("replayed", False))
            for e in AuditEvent.objects.filter(capability="session_patch", session_id=sid).order_by(
                "pk"
            )
        ]
        for sid in ids
    }
    assert evidence[done] == [("success", False, False)]
    assert evidence[landed] == [("success", True, False), ("success", True, True)]
    assert evidence[lost] == [("refused", True, False), ("success", False, False)]
    assert evidence[untouched] == [("success", False, False)]
    assert not IdempotencyRecord.objects.filter(outcome="running").exists()
