"""The turn without JavaScript as a background job: the POST answers at once.

The turn is recorded (``admission``) before the job is queued, so it is
still sent at most once: the job only runs ``sync_turn.run`` for it. The
job's result points at the turn (its text stays on the turn); when it is
done its progress page goes where the form went before: the session's chat,
or the turn's own page when Hermes refused it or it could not be sent.
"""

from __future__ import annotations

import contextlib

from django.urls import reverse

from hermes_ui.chat import store, sync_turn, turn_streams
from hermes_ui.chat.models import Turn, TurnState
from hermes_ui.jobs import runner
from hermes_ui.jobs.kinds import Kind, register
from hermes_ui.jobs.models import ACTIVE_STATES, Job
from hermes_ui.web import links

KIND = register(
    Kind(
        "chat_turn",
        "Sending a chat turn",
        unit="turn",
        interrupted=(
            "The dashboard stopped while waiting for Hermes' answer. The turn is shown as "
            "outcome uncertain: check the transcript before sending it again."
        ),
        next_label="Open the turn",
    )
)


def _key(turn: Turn) -> str:
    return f"turn-{turn.pk}"


def start(turn: Turn, client, user) -> Job:
    turn_url = reverse("chat_turn", kwargs={"endpoint": turn.endpoint, "turn_id": turn.pk})

    def work(progress):
        # Without a lease the turn is recorded as failed and nothing is sent.
        with contextlib.suppress(turn_streams.LeaseError):
            sync_turn.run(turn, client, user)
        progress.step()
        turn.refresh_from_db()
        not_sent = turn.state == TurnState.FAILED and turn.error_code == store.NO_LEASE_CODE
        if turn.rejected or not_sent:
            return {"next": turn_url}
        return {"next": links.session_url(turn.endpoint, turn.target_session_id) + "#chat"}

    scope = {"endpoint": turn.endpoint, "endpoint_fp": turn.endpoint_fp}
    job, _ = runner.submit(
        KIND,
        user=user,
        work=work,
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
