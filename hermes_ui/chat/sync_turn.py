"""The turn without JavaScript: one blocking ``session_chat`` call, then the same checks.

It runs on a job's thread (``chat.sync_job``; up to ``HERMES_CHAT_TIMEOUT``),
never in the page request, records the turn exactly like a streamed one,
and returns the refusal when Hermes rejected it outright. With Redis it
holds the turn's lease while it runs (renewed from a thread of its own), so
other workers do not settle it as orphaned. The database connection is
given back before the call, which can last minutes.
"""

from __future__ import annotations

import contextlib
import logging

from hermes_ui.chat import durability, store, turn_streams
from hermes_ui.chat.audit import record_turn
from hermes_ui.chat.models import IllegalTransition, Turn, TurnState
from hermes_ui.chat.progress import Ending
from hermes_ui.chat.relay import Job
from hermes_ui.hermes import HermesError
from hermes_ui.platform.db_steps import release_connections

log = logging.getLogger("hermes_ui.chat")


def run(turn: Turn, client, user) -> HermesError | None:
    """Send the turn and record it; raises ``turn_streams.LeaseError`` when it was not sent.

    A turn no longer pending (settled while it waited for a thread) is not sent.
    """
    store.claim(turn.pk)
    lease = turn_streams.kept(turn.pk, store.BOOT_ID) if turn_streams.enabled() else None
    with lease or contextlib.nullcontext():
        turn.refresh_from_db()
        if turn.state != TurnState.PENDING:
            log.warning("chat sync turn=%s was %s before it was sent", turn.pk, turn.state)
            return None
        return _run(turn, client, user)


def _run(turn: Turn, client, user) -> HermesError | None:
    view = store.view_of(turn, with_events=False)
    rejected, status, error = False, None, None
    release_connections()
    try:
        payload = client.chat(
            turn.target_session_id,
            message=turn.message,
            system_message=turn.system_message or None,
            session_key=turn.session_key or None,
        )
    except HermesError as failure:
        status = failure.status
        if failure.uncertain:
            ending = Ending("uncertain", failure.code, failure.message)
        else:
            rejected, error = True, failure
            ending = Ending("failed", failure.code, failure.provider_message or failure.message)
    else:
        message = payload.get("message") if isinstance(payload.get("message"), dict) else {}
        content = message.get("content")
        view.final_answer = content if isinstance(content, str) else ""
        view.usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else None
        if isinstance(payload.get("session_id"), str):
            view.effective_session_id = payload["session_id"]
        ending = (
            Ending("failed", "model_failed", view.final_answer)
            if view.model_failed
            else (Ending("completed"))
        )
    try:
        store.finish(turn.pk, ending, view, rejected=rejected)
    except IllegalTransition:
        # Settled meanwhile (its lease could not be renewed): the page shows
        # the state recorded then; the audit below still says what Hermes did.
        log.warning("chat sync turn=%s was settled before it finished", turn.pk)
    result = {"status": "skipped"}
    if not rejected:
        answer = None if view.model_failed else view.final_answer
        result = durability.check(
            client,
            view.next_session_id,
            message=turn.message,
            answer=answer,
            after=turn.baseline_message_id,
        )
    store.save_durability(turn.pk, result)
    job = Job.for_turn(turn, client, user)
    record_turn(job, ending, view, rejected, status)
    return error
