"""Opaque cursors: the page links' own keyset values, encoded so a client passes them back
unchanged. A damaged cursor is a 400, never a 500."""

from __future__ import annotations

import base64
import json

from hermes_ui.api.errors import bad_request


def encode(values: dict) -> str:
    raw = json.dumps(values, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(cursor: str | None) -> dict:
    if not cursor:
        return {}
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        values = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        values = None
    if not isinstance(values, dict):
        raise bad_request("This cursor is damaged; start from the first page.", "bad_cursor")
    return values
