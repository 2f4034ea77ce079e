"""The turn without JavaScript as a background job: the POST answers at once."""

from __future__ import annotations

import contextlib

from django.urls import reverse
from django_tasks import task

from hermes_ui.background.jobs import runner
from hermes_ui.background.jobs.kinds import KINDS
from hermes_ui.background.jobs.models import ACTIVE_STATES, Job
from hermes_ui.chat import store, sync_turn, turn_streams
from hermes_ui.chat.models import Turn, TurnState
from hermes_ui.hermes import client_for
from hermes_ui.web import links

KIND = KINDS["chat_turn"]


def _key(turn: Turn) -> str:
    return f"turn-{turn.pk}"


@task(takes_context=True)
def send_turn(context, job_id: int) -> None:
    runner.execute(job_id, _work, runner.worker_of(context))


def _work(job: Job, progress, resumed: bool) -> dict:
    turn = Turn.objects.get(pk=job.params["turn"])
    turn_url = reverse("chat_turn", kwargs={"endpoint": turn.endpoint, "turn_id": turn.pk})
    if resumed:
        store.settle_interrupted(turn.pk)
    else:
        endpoint = runner.endpoint_of(job)
        # Without a lease the turn is recorded as failed and nothing is sent.
        with contextlib.suppress(turn_streams.LeaseError):
            sync_turn.run(turn, client_for(endpoint), job.user)
    progress.step()
    turn.refresh_from_db()
    not_sent = turn.state == TurnState.FAILED and turn.error_code == store.NO_LEASE_CODE
    if turn.rejected or not_sent or turn.state == TurnState.UNCERTAIN:
        return {"next": turn_url}
    return {"next": links.session_url(turn.endpoint, turn.target_session_id) + "#chat"}


def start(turn: Turn, user) -> Job:
    turn_url = reverse("chat_turn", kwargs={"endpoint": turn.endpoint, "turn_id": turn.pk})
    scope = {"endpoint": turn.endpoint, "endpoint_fp": turn.endpoint_fp}
    job, _ = runner.submit(
        KIND,
        send_turn,
        user=user,
        params={"turn": turn.pk},
        scope=scope,
        key=_key(turn),
        total=1,
        result={"turn": turn.pk, "next": turn_url},
    )
    return job


def running(turn: Turn) -> Job | None:
    """The job sending this turn, while it is queued or running."""
    job = Job.objects.filter(kind=KIND.name, key=_key(turn), state__in=ACTIVE_STATES).first()
    return job if job is not None and job.active else None
