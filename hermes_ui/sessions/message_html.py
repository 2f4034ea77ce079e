"""Transcript messages as HTML, drawn in Python (the session page's hot loop).

A window holds up to ``HERMES_MESSAGES_PAGE_SIZE`` messages, and a template
include per message made a long transcript's page measurably slower, so, by
the 5 % rule (docs/development/benchmarks.md), the markup is built here. Each
message has few elements: its head is the first line of text (styled by
``.msg::first-line``; the role is ``data-role``, shown by CSS and named in
``aria-label``), then reasoning, the parts (or a tool result), the tool
calls, and review's part (``message_review``, called directly). Every value
from Hermes goes through ``escape`` or the sanitised markdown.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.template.defaultfilters import truncatechars
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

from hermes_ui.hermes import transcript
from hermes_ui.review.templatetags.review_notes import message_review
from hermes_ui.web import formatting, timefmt
from hermes_ui.web.markdown import render_markdown


def messages(context, shown: Iterable[transcript.Message]) -> SafeString:
    """A window of messages, as ``partials/messages_chunk.html`` shows them."""
    focus_id = context.get("focus_id")
    return mark_safe("".join([_message(context, m, focus_id) for m in shown]))  # noqa: S308 - see _message


def message(context, m: transcript.Message) -> SafeString:
    """One message (review's item page draws them one by one, beside its fields)."""
    return mark_safe(_message(context, m, context.get("focus_id")))  # noqa: S308 - see _message


def _message(context, m: transcript.Message, focus_id: Any) -> str:
    """The markup of one message: every value from Hermes escaped or sanitised."""
    row = m.row
    mid = escape(m.id)
    role = escape(m.role)
    focus = " msg-focus" if focus_id is not None and m.id == focus_id else ""
    out = [
        f'<article class="msg role-{escape(slugify(m.role))}{focus}" id="msg-{mid}" '
        f'data-role="{role}" aria-label="{role} message {mid}">\n  #{mid}'
    ]
    if timestamp := row.get("timestamp"):
        out.append(f" · {escape(timefmt.exact(timestamp))}, {escape(timefmt.relative(timestamp))}")
    if row.get("token_count"):
        out.append(f" · {escape(formatting.number(row['token_count']))} tokens")
    if row.get("finish_reason"):
        out.append(f" · finish: {escape(row['finish_reason'])}")
    out.append("\n")
    if m.reasoning:
        out.append(
            '  <details class="reasoning"><summary>Reasoning</summary><div class="md">'
            f"{_markdown(m.reasoning)}</div></details>\n"
        )
    call = m.tool_result_for
    if m.hidden:
        out.append(_hidden(m, mid))
    elif call:
        out.append(
            f'  <div class="tool-result" id="{escape(m.tool_result_anchor)}">\n'
            f'    <p class="tool-link">Result of <a href="#{escape(call.anchor)}"><code>'
            f"{escape(call.name)}</code></a> "
            f'<code class="muted">{escape(call.call_id)}</code></p>\n'
        )
        for p in m.parts:
            out.append(f'<pre class="tool-output" tabindex="0">{escape(_pretty(p.text))}</pre>')
        out.append("\n  </div>\n")
    else:
        for p in m.parts:
            out.append(_part(p, mid))
    for c in m.tool_calls:
        out.append(
            f'  <details class="tool-call" id="{escape(c.anchor)}">\n'
            f"    <summary>Tool call <code>{escape(c.name)}</code> "
            f'<code class="muted">{escape(c.call_id)}</code></summary>\n'
            f'    <pre class="tool-args" tabindex="0">{escape(c.arguments)}</pre>\n'
            f'    <p><a href="#{escape(c.result_anchor)}">Go to its result</a></p>\n'
            "  </details>\n"
        )
    out.append(message_review(context, m))
    out.append("\n</article>")
    return "".join(out)


def _hidden(m: transcript.Message, mid: str) -> str:
    """A compaction summary Hermes hides: collapsed and labelled, never an empty message."""
    parts = "".join(_part(p, mid) for p in m.parts) or (
        "<p>Hermes keeps the text of this summary out of the transcript.</p>"
    )
    return (
        '  <details class="compaction-hidden"><summary>Compaction summary '
        f"(hidden by Hermes)</summary>\n  <p>Hermes compacted the turns before this point into "
        f"a summary.</p>\n{parts}  </details>\n"
    )


def _markdown(text: Any) -> SafeString:
    return render_markdown(text if isinstance(text, str) else "")


def _pretty(text: Any) -> Any:
    """Tool output that is JSON, indented; anything else unchanged."""
    return transcript.pretty_json(text) if isinstance(text, str) and text[:1] in "{[" else text


def _part(p: transcript.Part, mid: str) -> str:
    if p.kind == "text":
        return f'  <div class="md">{_markdown(p.text)}</div>\n'
    if p.kind == "image":
        url = escape(p.url)
        if p.inline_image:
            return f'  <img class="part-image" src="{url}" alt="image attached to message {mid}">\n'
        short = escape(truncatechars(p.url, 120))
        if p.linkable:
            return (
                f'  <p class="part-image-link">Image: <a href="{url}" '
                f'rel="noopener noreferrer nofollow" target="_blank">{short}</a></p>\n'
            )
        return (
            '  <p class="part-image-link">Image (not a web link, shown as text): '
            f"<code>{short}</code></p>\n"
        )
    return f'  <pre class="part-other" tabindex="0">{escape(p.text)}</pre>\n'
