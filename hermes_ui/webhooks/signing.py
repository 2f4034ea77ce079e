"""The body of a delivery and its signature (GitHub's convention)."""

from __future__ import annotations

import hashlib
import hmac
import json

EVENT_HEADER = "X-Hermes-UI-Event"
DELIVERY_HEADER = "X-Hermes-UI-Delivery"
SIGNATURE_HEADER = "X-Hermes-UI-Signature-256"
PING = "ping"  # the test event


def body(event: str, delivery: str, created_at: str, endpoint: str, ids: dict, counts: dict):
    """Compact JSON: ids and counts only, never content."""
    return json.dumps(
        {
            "event": event,
            "delivery": delivery,
            "created_at": created_at,
            "endpoint": endpoint,
            "ids": ids,
            "counts": counts,
        },
        separators=(",", ":"),
        sort_keys=True,
    )


def signature(secret: str, raw: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()


def headers(secret: str, event: str, delivery: str, raw: bytes) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": "Hermes-UI-Webhooks",
        EVENT_HEADER: event,
        DELIVERY_HEADER: delivery,
        SIGNATURE_HEADER: signature(secret, raw),
    }
