"""Schemathesis hooks of tests/api/test_schemathesis.py (``SCHEMATHESIS_HOOKS``): what a
client does that OpenAPI cannot say, applied to the schema-valid cases only.

- A new ``Idempotency-Key`` for each intended change: Hypothesis draws the same small
  keys again and again, and a key reused for another change is rightly a 422.
- A ``cursor`` is one a previous page gave (opaque; a made-up one is a 400).
- Rules between parameters: transcript search needs words in ``q``; custom usage
  dates come as a pair, in order, at most 366 days apart; a PATCH sends exactly one
  of ``title`` and ``end_reason``.
- A title no other session has: Hermes keeps titles unique (a taken one is a 400
  ``invalid_title``), so each drawn title gets a random suffix.
- A new session's id (create, fork) as the pages take one: no ``..``, no drive
  prefix such as ``C:``, not only spaces (``hermes.ids.check_new_id``; the document
  says the rest).

- A path's session id that breaks its declared pattern makes an invalid request,
  whose 400 is no failure, though the stateful phase counts it as valid.

The schema-violating cases keep what Schemathesis drew, and must be refused.
"""

import re
import unicodedata
import uuid
from datetime import date
from urllib.parse import unquote

import schemathesis

WRITES = {"POST", "PUT", "PATCH", "DELETE"}


@schemathesis.hook
def map_case(context, case):
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return case
    if case.method.upper() in WRITES and case.headers and "Idempotency-Key" in case.headers:
        case.headers["Idempotency-Key"] = uuid.uuid4().hex
    body = case.body if isinstance(case.body, dict) else None
    if body is not None:
        _new_ids(body)
        if isinstance(body.get("title"), str):  # Hermes' titles are unique per endpoint
            body["title"] = f"{body['title'][:60]} {uuid.uuid4().hex[:8]}"
        if case.method.upper() == "PATCH":
            _exactly_one(body)
    query = case.query
    if not query:
        return case
    query.pop("cursor", None)
    if query.get("within") == "transcripts" and not re.search(r"\w", str(query.get("q", ""))):
        query["q"] = "hello"
    if "start" in query or "end" in query:
        start, end = _day(query.get("start")), _day(query.get("end"))
        if start is None or end is None or start > end or (end - start).days >= 366:
            query.pop("start", None)
            query.pop("end", None)
    return case


def _day(value):
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        return None


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keep every failure but a 400 for a path id that breaks its declared pattern: the
    stateful phase draws such ids (a line break) and still counts the request valid."""
    session_id = (case.path_parameters or {}).get("session_id")
    # It arrives percent-encoded already (carried over from an earlier request's path).
    broken = isinstance(session_id, str) and re.search(r"[{}\r\n\x00]", unquote(session_id))
    return not (broken and response.status_code == 400)


def _exactly_one(body: dict) -> None:
    given = [name for name in ("title", "end_reason") if body.get(name) is not None]
    for name in ("title", "end_reason"):
        if name not in given[:1]:
            body.pop(name, None)
    if not given:
        body["title"] = f"Schemathesis {uuid.uuid4().hex[:8]}"


def _new_ids(body: dict) -> None:
    for name in ("session_id", "child_id", "model"):
        value = body.get(name)
        if isinstance(value, str) and not (_control_free if name == "model" else _new_id)(value):
            body.pop(name)


def _control_free(value: str) -> bool:
    return not any(unicodedata.category(ch) == "Cc" for ch in value)


def _new_id(value: str) -> bool:
    value = value.strip() if value.strip() else value
    if value == "":
        return True  # Hermes makes one
    if value.isspace() or len(value) > 256 or not _control_free(value):
        return False
    if any(part in value for part in ("..", "/", "\\", "{", "}")):
        return False
    return not (len(value) >= 2 and value[0].isalpha() and value[1] == ":")
