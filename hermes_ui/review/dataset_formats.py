"""Writing dataset records as JSONL or CSV, with the SHA-256 trailer line."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

COLUMNS = (
    "endpoint",
    "session_id",
    "message_id",
    "role",
    "context",
    "output",
    "correction",
    "correction_by",
    "labels",
    "reviews",
    "reviewer_ids",
    "error",
)
_JSON_COLUMNS = ("context", "labels", "reviews", "reviewer_ids")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
# Escaped in JSONL: HTML's specials, and the Unicode line and paragraph separators,
# which readers that split on every line break (str.splitlines) would split a record at.
_ESCAPED = "<>&\u2028\u2029"


def _j(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    for char in _ESCAPED:
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def jsonl_body(records: Iterable[dict]) -> Iterator[str]:
    for record in records:
        yield _j(record) + "\n"


def jsonl_trailer(counts: dict):
    def trailer(sha256: str) -> str:
        return (
            _j({"sha256": sha256, "sha256_covers": "every byte before this line", **counts}) + "\n"
        )

    return trailer


def neutral(value) -> str:
    """A cell's text, with a leading ``'`` where a spreadsheet would start a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA) else text


def csv_body(records: Iterable[dict]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    yield ",".join(COLUMNS) + "\r\n"
    for record in records:
        cells = []
        for name in COLUMNS:
            value = record.get(name)
            if name in _JSON_COLUMNS and value is not None:
                value = json.dumps(value, ensure_ascii=False)
            cells.append(neutral(value))
        writer.writerow(cells)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def csv_trailer(counts: dict):
    def trailer(sha256: str) -> str:
        return f"#sha256,{sha256}\r\n"

    return trailer


@dataclass(frozen=True)
class Format:
    body: object
    trailer: object  # counts -> (sha256 -> the last line)
    content_type: str
    extension: str


FORMATS = {
    "jsonl": Format(jsonl_body, jsonl_trailer, "application/x-ndjson; charset=utf-8", "jsonl"),
    "csv": Format(csv_body, csv_trailer, "text/csv; charset=utf-8", "csv"),
}
