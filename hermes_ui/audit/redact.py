"""Redaction: what may be written to the audit trail, idempotency results and logs.

Allowlisting, not blocklisting: only these keys survive, and only as short
scalars. Titles are user text too, so evidence keeps their length and a
digest, never the text itself; system prompts keep only their length.
"""

import hashlib

SAFE_KEYS = {
    "id",
    "session_id",
    "reconciled",  # a resumed job settled this call by reading Hermes (hermes_ui/bulk/close.py)
    "parent_session_id",
    "child_id",
    "source",
    "end_reason",
    "message_count",
    "active_message_count",
    "ended",
    "deleted",
    "created",
    "code",
    "status",
    "outcome",
    "policy_rule",
    "role",
    "request_id",
    "approval_id",
    "turn_id",
    "state",
    "events",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "has_system_prompt",
    "has_model_config",
    "resolved_session_id",
    "effective_session_id",
    "digest",
    "count",
    "cascade",
    "survivors",
    "fields",
    "reason_given",
    "kind",
    "replayed",
    # changes (rename/close, create, fork): ids, codes, counts and times only.
    "model",
    "op",
    "attempted_at",
    "requested_id",
    "conflict_id",
    "parent_end_reason",
    "parent_open",
    "parent_message_count",
    "child_message_count",
    "child_digest",
    "title_applied",
    "end_reason_kept",
    "stage",
    "applied",
    # compare verdicts and exports: ids, choices, flags, counts and the export's hash.
    "other_session_id",
    "preferred_session_id",
    "choice",
    "format",
    "redacted",
    "lineage",
    "sessions",
    "masked",
    "sha256",
    # review notes and corrections: the message they are about and the text's length only.
    "message_id",
    "length",
    # review queues: ids, counts, states and rubric versions only (never a label's value).
    "queue_id",
    "item_id",
    "review_id",
    "version",
    "reviews_needed",
    "any_reviewer",
    "assignees",
    "added",
    "already",
    # single sign-on: the identity's subject and issuer, and the account linked (never a token).
    "subject",
    "issuer",
    "account",
    # ...and the identity provider's groups that mean something here, with what they give.
    "groups",
    "grants",
    # retention: the username of a rule's last editor (who may not review its batches),
    # and the name of a keep tag added, removed, or taken off sessions (admins' words
    # for a protection; other tags are audited by id only).
    "editor",
    "keep_tag",
    # SCIM provisioning (hermes_ui/scim): the person's username, ids, the group's name as the
    # identity provider names it, who was added or removed, counts (never a token).
    "scim_id",
    "group",
    "old_group",
    "accounts",
    "active",
    "kept",
    "memberships_removed",
    "tokens_revoked",
    # access: whose grant changed (an account name), its origin, sources and role, the
    # group it went to, what was taken, and why a person's sessions were ended.
    "person",
    "origin",
    "sources",
    "taken",
    "ended_because",
    # share links: the share's id, expiry and view limit, and a viewer's network (a /24 or
    # /48, never the address).
    "share_id",
    "expires_at",
    "max_views",
    "client",
}
TEXT_KEYS = {"title", "child_title", "comment", "reason", "message"}
# Prompts are longer-lived secrets than a title: not even a digest is kept,
# only whether one was given and how long it was.
PROMPT_KEYS = {"system_message", "system_prompt"}
MAX_SCALAR = 300


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def describe_text(text) -> dict:
    """A fingerprint of user text: enough to tell two values apart, nothing to read."""
    if text is None:
        return {"present": False}
    if isinstance(text, dict) and set(text) <= {"present", "length", "sha256_16"}:
        return dict(text)  # already a fingerprint (evidence redacted twice)
    value = str(text)
    return {"present": True, "length": len(value), "sha256_16": digest(value)}


def describe_prompt(text) -> dict:
    if isinstance(text, dict) and set(text) <= {"present", "length"}:
        return dict(text)
    if not text:
        return {"present": False}
    return {"present": True, "length": len(str(text))}


def evidence(data: dict) -> dict:
    clean = {}
    for key, value in (data or {}).items():
        if key in PROMPT_KEYS:
            clean[key] = describe_prompt(value)
        elif key in TEXT_KEYS:
            clean[key] = describe_text(value)
        elif key in SAFE_KEYS:
            clean[key] = _scalar(value)
    return clean


def _scalar(value):
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, list | tuple):
        return [_scalar(v) for v in list(value)[:200]]
    if isinstance(value, dict):
        return evidence(value)
    return str(value)[:MAX_SCALAR]
