"""Export writers: JSON, Markdown and HTML, each a generator of text pieces."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.utils.html import escape

from hermes_ui.hermes.session import is_closed
from hermes_ui.hermes.transcript import plain_text
from hermes_ui.platform.redaction import Redactor


@dataclass
class ExportSession:
    row: dict  # the session row as Hermes sent it (title masked when redacting)
    lineage: dict  # parent_session_id, root_session_id, kind, depth
    messages_session_id: str  # whose rows /messages returned
    messages: Iterable[dict] = ()  # provider-shaped rows, masked when redacting; lazy
    error: str = ""  # why the messages could not be read


@dataclass
class ExportDoc:
    endpoint: str
    session_id: str
    exported_by: str
    lineage: bool
    redactor: Redactor
    sessions: Iterable[ExportSession]
    exported_at: str = field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds")
    )
    notes: list[str] = field(default_factory=list)


def _summary(doc: ExportDoc) -> dict:
    return {
        "applied": doc.redactor.enabled,
        "masked": doc.redactor.count,
        "by_kind": dict(sorted(doc.redactor.by_kind.items())),
    }


# -- JSON -----------------------------------------------------------------------------


def _j(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def json_body(doc: ExportDoc) -> Iterator[str]:
    head = {
        "format": "hermes-ui-export",
        "version": 1,
        "endpoint": doc.endpoint,
        "session_id": doc.session_id,
        "lineage_export": doc.lineage,
        "exported_at": doc.exported_at,
        "exported_by": doc.exported_by,
        "redacted": doc.redactor.enabled,
        "notes": doc.notes,
    }
    yield _j(head)[:-1] + ', "sessions": ['
    for index, item in enumerate(doc.sessions):
        yield (
            ("," if index else "")
            + "\n"
            + _j(
                {
                    "session": item.row,
                    "lineage": item.lineage,
                    "messages_session_id": item.messages_session_id,
                    "error": item.error or None,
                }
            )[:-1]
            + ', "messages": ['
        )
        for number, row in enumerate(item.messages):
            yield ("," if number else "") + "\n" + _j(row)
        yield "]}"
    yield '\n], "redaction": ' + _j(_summary(doc)) + ", "


def json_trailer(sha256: str) -> str:
    return f'"sha256": "{sha256}", "sha256_covers": "every byte before \\"sha256\\""}}\n'


# -- Markdown ---------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|&#!])")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def md_inline(value) -> str:
    """One line of user text outside a fence: markup characters backslash-escaped."""
    text = _CONTROL.sub(" ", str(value if value is not None else "")).replace("\n", " ")
    return _MD_SPECIAL.sub(r"\\\1", text)


def md_fence(text: str) -> str:
    """Text inside a ``~`` fence longer than any run of ``~`` in it: shown literally."""
    longest = max((len(run) for run in re.findall(r"~+", text)), default=0)
    fence = "~" * max(3, longest + 1)
    return f"{fence}text\n{_CONTROL.sub(' ', text)}\n{fence}\n"


def md_body(doc: ExportDoc) -> Iterator[str]:
    yield f"# Hermes session export: {md_inline(doc.session_id)}\n\n"
    for label, value in _doc_facts(doc):
        yield f"- {label}: {md_inline(value)}\n"
    for item in doc.sessions:
        yield f"\n## {md_inline(item.row.get('title') or 'Untitled session')}\n\n"
        for label, value in _session_facts(item):
            yield f"- {label}: {md_inline(value)}\n"
        for number, msg in enumerate(item.messages, start=1):
            yield f"\n### {md_inline(_message_head(number, msg))}\n\n" + md_fence(plain_text(msg))
            reasoning = _reasoning(msg)
            if reasoning:
                yield "\nReasoning:\n\n" + md_fence(reasoning)
    yield "\n---\n\n" + _redaction_line(doc) + "\n\n"


def md_trailer(sha256: str) -> str:
    return f"SHA-256 of every byte above this line: {sha256}\n"


# -- HTML -------------------------------------------------------------------------------

_CSS = (
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1d232a;"
    "background:#f6f7f9;margin:0 auto;max-width:60em;padding:1em 1.5em}"
    "h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #dde1e6}"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}dt{color:#66707a}"
    "dd{margin:0;overflow-wrap:anywhere}"
    "article{background:#fff;border:1px solid #dde1e6;border-left:4px solid #9aa5b1;"
    "border-radius:6px;padding:.4em .9em;margin:.6em 0}"
    "article.user{border-left-color:#2457c5}article.assistant{border-left-color:#1d7a3a}"
    "article.tool{border-left-color:#7a3db8}.head{font-size:.85em;color:#66707a}"
    ".head b{color:#1d232a;text-transform:capitalize}"
    "pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.3em 0;font:inherit}"
    ".note{background:#fff4dc;color:#8a5a00;padding:.4em .8em;border-radius:6px}"
    "footer{margin-top:2em;font-size:.85em;color:#66707a;overflow-wrap:anywhere}"
)


def html_body(doc: ExportDoc) -> Iterator[str]:
    title = f"Hermes session export: {escape(doc.session_id)}"
    yield (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{_CSS}</style></head><body>\n<h1>{title}</h1>\n"
    )
    yield _html_facts(_doc_facts(doc))
    for item in doc.sessions:
        yield f"<section><h2>{escape(item.row.get('title') or 'Untitled session')}</h2>"
        yield _html_facts(_session_facts(item))
        for number, msg in enumerate(item.messages, start=1):
            role = str(msg.get("role") or "?")
            yield (
                f'<article class="{escape(role)}"><div class="head">'
                f"{escape(_message_head(number, msg))}</div>"
                f"<pre>{escape(plain_text(msg))}</pre>"
            )
            reasoning = _reasoning(msg)
            if reasoning:
                yield f"<details><summary>Reasoning</summary><pre>{escape(reasoning)}</pre>"
                yield "</details>"
            yield "</article>\n"
        yield "</section>\n"
    yield f"<footer><p>{escape(_redaction_line(doc))}</p>\n"


def _html_facts(facts: list[tuple[str, str]]) -> str:
    rows = "".join(f"<dt>{escape(label)}</dt><dd>{escape(value)}</dd>" for label, value in facts)
    return f"<dl>{rows}</dl>\n"


def html_trailer(sha256: str) -> str:
    return f"<p>SHA-256 of every byte before this paragraph: {sha256}</p></footer></body></html>\n"


# -- shared ----------------------------------------------------------------------------


def _doc_facts(doc: ExportDoc) -> list[tuple[str, str]]:
    facts = [
        ("Endpoint", doc.endpoint),
        ("Exported", f"{doc.exported_at} by {doc.exported_by}"),
        ("Whole lineage", "yes" if doc.lineage else "no"),
        ("Redaction", "on" if doc.redactor.enabled else "off"),
    ]
    return facts + [("Note", note) for note in doc.notes]


def _session_facts(item: ExportSession) -> list[tuple[str, str]]:
    row, parent = item.row, item.lineage.get("parent_session_id")
    facts = [
        ("Id", str(row.get("id"))),
        ("Source", row.get("source") or "?"),
        ("Model", row.get("model") or "?"),
    ]
    if parent:
        facts.append(("Parent", f"{parent} ({item.lineage.get('kind') or 'child'})"))
    if is_closed(row):
        facts.append(("Ended", row.get("end_reason") or "no reason"))
    if item.messages_session_id != row.get("id"):
        facts.append(("Messages", f"Hermes returns those of {item.messages_session_id}"))
    if item.error:
        facts.append(("Messages", f"could not be read: {item.error}"))
    return facts


def _message_head(number: int, msg: dict) -> str:
    head = f"{number}. {msg.get('role') or '?'} · {_when(msg.get('timestamp'))}"
    return head + (f" · {msg['finish_reason']}" if msg.get("finish_reason") else "")


def _reasoning(msg: dict) -> str:
    value = msg.get("reasoning") or msg.get("reasoning_content")
    return value if isinstance(value, str) else ""


def _redaction_line(doc: ExportDoc) -> str:
    if not doc.redactor.enabled:
        return "Redaction: off."
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(doc.redactor.by_kind.items()))
    return f"Redaction: on; {doc.redactor.count} value(s) masked" + (
        f" ({kinds})." if kinds else "."
    )


def _when(timestamp) -> str:
    try:
        return datetime.fromtimestamp(float(timestamp), UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (TypeError, ValueError, OverflowError, OSError):
        return "time unknown"


@dataclass(frozen=True)
class Writer:
    body: object
    trailer: object
    content_type: str
    extension: str


WRITERS = {
    "json": Writer(json_body, json_trailer, "application/json; charset=utf-8", "json"),
    "md": Writer(md_body, md_trailer, "text/markdown; charset=utf-8", "md"),
    "html": Writer(html_body, html_trailer, "text/html; charset=utf-8", "html"),
}
