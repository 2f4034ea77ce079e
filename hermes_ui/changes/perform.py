"""Create, rename or close, and fork: each change as the pages and the API make it.

Both call these with the cleaned form values and the submission's key, so the
role checks, the replay boundary (``apply.attempt``), the evidence recorded and
the audit event are one code path whichever door the change came through.
"""

from __future__ import annotations

from hermes_ui.audit.models import Outcome
from hermes_ui.audit.redact import describe_text
from hermes_ui.changes import apply, reconcile
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.index.forks import remember_fork
from hermes_ui.platform.endpoints import Endpoint


def create_inputs(data: dict) -> dict:
    return {
        "requested_id": data["session_id"],
        "title": data["title"],
        "model": data["model"],
        "system_prompt": data["system_prompt"],
    }


def patch_inputs(op: str, fields: dict) -> dict:
    return {"op": op, **fields}


def fork_inputs(data: dict) -> dict:
    return {"child_id": data["child_id"], "title": data["title"]}


def create(ep: Endpoint, user, data: dict) -> apply.Applied:
    """``data``: ``key``, ``session_id``, ``title``, ``model``, ``system_prompt``."""
    return apply.attempt(
        apply.CREATE,
        ep,
        user,
        form_key=data["key"],
        inputs=create_inputs(data),
        session_id=data["session_id"] or "",
        call=lambda key, evidence: client_for(ep).create_session(
            idempotency_key=key,
            session_id=data["session_id"],
            title=data["title"],
            model=data["model"],
            system_prompt=data["system_prompt"],
        ),
    )


def patch(ep: Endpoint, user, session_id: str, op: str, key: str, fields: dict) -> apply.Applied:
    """A rename (``op`` "rename", ``fields`` {title}) or a close ({end_reason}).

    No read before the PATCH: the change goes out as submitted, and a failure
    to read afterwards never turns into a failure to change.
    """
    return apply.attempt(
        apply.PATCH,
        ep,
        user,
        form_key=key,
        inputs=patch_inputs(op, fields),
        session_id=session_id,
        call=lambda effective, evidence: client_for(ep).patch_session(
            session_id, idempotency_key=effective, **fields
        ),
    )


def fork(ep: Endpoint, user, session_id: str, data: dict) -> apply.Applied:
    """``data``: ``key``, ``child_id``, ``title``. A child made is remembered for lineage."""
    client = client_for(ep)

    def call(key, evidence):
        # What the parent looked like just before: the reconcile panel needs
        # it to tell "ended by this fork" from "was already closed".
        evidence["stage"] = "pre_read"
        parent = client.get_session(session_id)
        rows = client.get_messages(session_id)
        # Fork copies the parent's OWN rows; /messages shows them only when it
        # does not resolve elsewhere (a compression tip, an earlier fork's child).
        own = rows["session_id"] == session_id
        evidence.update(
            parent_open=not parent.closed,
            parent_end_reason=parent.end_reason,
            parent_message_count=len(rows["data"]) if own else parent.message_count,
            digest=reconcile.messages_digest(rows["data"]) if own else None,
            stage="fork",
        )
        child = client.fork_session(
            session_id, idempotency_key=key, child_id=data["child_id"], title=data["title"]
        )
        evidence.update(_child_at_fork(client, child))
        return child

    applied = apply.attempt(
        apply.FORK,
        ep,
        user,
        form_key=data["key"],
        inputs=fork_inputs(data),
        session_id=session_id,
        call=call,
    )
    if applied.outcome == Outcome.SUCCESS:
        remember_fork(ep, session_id, applied.evidence["child_id"], user)
    return applied


def _child_at_fork(client, child) -> dict:
    """The child as Hermes returned it, recorded so its outcome page judges this moment,
    not what the child became (a chat turn on it adds messages, which is no failure)."""
    facts = {"child_title": describe_text(child.title)}
    try:
        rows = client.get_messages(child.id)
    except HermesError:
        return facts  # the fork succeeded; its page reads the child instead
    if rows["session_id"] == child.id:
        facts.update(  # type: ignore[call-overload]
            child_message_count=len(rows["data"]),
            child_digest=reconcile.messages_digest(rows["data"]),
        )
    return facts
