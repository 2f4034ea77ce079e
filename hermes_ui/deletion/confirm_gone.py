"""Confirm gone: after a DELETE, read Hermes again to show what is really gone and what survived."""

from __future__ import annotations

from hermes_ui.hermes import HermesError
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient

GONE, STILL_PRESENT, UNKNOWN = "gone", "still_present", "unknown"
ROOT, PARENT_KEPT, MISSING = "root", "parent_not_cleared", "missing"


def _deleted(client: HermesClient, session_id: str, kind: str) -> dict:
    """One id the DELETE should have removed; a survivor keeps its parent id as read."""
    checked = {"id": session_id, "kind": kind}
    try:
        row = client.get_session(session_id)
    except e.NotFound:
        return {**checked, "state": GONE}
    except HermesError:
        return {**checked, "state": UNKNOWN}
    return {**checked, "state": STILL_PRESENT, "parent_session_id": row.parent_id}


def leftovers(result: dict) -> list[dict]:
    """The ids the DELETE should have removed that Hermes still has (read afterwards)."""
    return [d for d in result.get("deleted", []) if d.get("state") == STILL_PRESENT]


def cascade_held(result: dict) -> bool | None:
    """Did Hermes delete every marked delegate with the session? None: nothing to tell
    (no delegate expected, or only inferred ones, which Hermes may rightly keep)."""
    marked = [d for d in result.get("deleted", []) if d.get("kind") == "delegate"]
    if not marked or any(d.get("state") == UNKNOWN for d in marked):
        return None
    return all(d.get("state") == GONE for d in marked)


def _survivor(client: HermesClient, item: dict) -> dict:
    checked = {"id": item["id"], "kind": item.get("kind", ""), "parent_session_id": None}
    try:
        row = client.get_session(item["id"])
    except e.NotFound:
        return {**checked, "state": MISSING}
    except HermesError:
        return {**checked, "state": UNKNOWN}
    parent = row.parent_id
    return {**checked, "parent_session_id": parent, "state": PARENT_KEPT if parent else ROOT}


def after_delete(
    client: HermesClient, target_id: str, cascade: list[dict], survivors: list[dict]
) -> dict:
    """``session_get`` on every id: 404 means deleted, a parentless row means a new root.

    ``cascade`` and ``survivors`` are the consequences' items. A delegate that
    was only inferred and is still present was kept by the provider (it did
    not carry the hidden marker), which the result page says in those words.
    """
    expected = [(target_id, "session")] + [
        (item["id"], "inferred_delegate" if item.get("inferred") else "delegate")
        for item in cascade
    ]
    return {
        "session_id": target_id,
        "deleted": [_deleted(client, sid, kind) for sid, kind in expected],
        "survivors": [_survivor(client, item) for item in survivors],
    }
