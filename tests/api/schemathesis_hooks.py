"""Schemathesis hooks of tests/api/test_schemathesis.py (``SCHEMATHESIS_HOOKS``): what a
client does that OpenAPI cannot say, applied to the schema-valid cases only.

- A new ``Idempotency-Key`` for each intended change: Hypothesis draws the same small
  keys again and again, and a key reused for another change is rightly a 422.
- A ``cursor`` is one a previous page gave (opaque; a made-up one is a 400).
- Rules between parameters: transcript search needs words in ``q``; custom usage
  dates come as a pair, in order, at most 366 days apart.

The schema-violating cases keep what Schemathesis drew, and must be refused.
"""

import re
import uuid
from datetime import date

import schemathesis

WRITES = {"POST", "PUT", "PATCH", "DELETE"}


@schemathesis.hook
def map_case(context, case):
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return case
    if case.method.upper() in WRITES and case.headers and "Idempotency-Key" in case.headers:
        case.headers["Idempotency-Key"] = uuid.uuid4().hex
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
