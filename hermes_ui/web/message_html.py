"""One transcript message as HTML, drawn in Python (the page's hot loop).

The markup ``partials/message.html`` used to draw, in few elements (a long
transcript has thousands): its head is the first line of text (styled by
``.msg::first-line``; the role is ``data-role``, shown by CSS and named in
``aria-label``), then reasoning, the parts (or a tool result), the tool
calls, and what features add to a message (``web.message_parts``). Every
value from Hermes goes through ``escape`` or the sanitised markdown.
"""

from __future__ import annotations

from django.template.defaultfilters import truncatechars
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

from hermes_ui.hermes import transcript
from hermes_ui.web import formatting, message_parts, timefmt
from hermes_ui.web.markdown import render_markdown
from hermes_ui.web.message_parts import escape


def draw(context, m, focus_id=None) -> SafeString:
    row = m.row
    mid = escape(m.id)
    role = escape(m.role)
    focus = " msg-focus" if focus_id is not None and m.id == focus_id else ""
    head = [f"#{mid}"]
    timestamp = row.get("timestamp")
    if timestamp:
        head.append(f" · {escape(timefmt.exact(timestamp))}, {escape(timefmt.relative(timestamp))}")
    if row.get("token_count"):
        head.append(f" · {escape(formatting.number(row['token_count']))} tokens")
    if row.get("finish_reason"):
        head.append(f" · finish: {escape(row['finish_reason'])}")
    out = [
        f'<article class="msg role-{escape(slugify(m.role))}{focus}" id="msg-{mid}" '
        f'data-role="{role}" aria-label="{role} message {mid}">\n  ',
        "".join(head),
        "\n",
    ]
    if m.reasoning:
        out.append(
            '  <details class="reasoning"><summary>Reasoning</summary><div class="md">'
            f"{render_markdown(m.reasoning)}</div></details>\n"
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
    for extra in message_parts.parts():
        out.append(extra(context, m))
    out.append("\n</article>")
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped or sanitised


def _hidden(m, mid) -> str:
    """A compaction summary Hermes hides: collapsed and labelled, never an empty message."""
    parts = "".join(_part(p, mid) for p in m.parts) or (
        "<p>Hermes keeps the text of this summary out of the transcript.</p>"
    )
    return (
        '  <details class="compaction-hidden"><summary>Compaction summary '
        f"(hidden by Hermes)</summary>\n  <p>Hermes compacted the turns before this point into "
        f"a summary.</p>\n{parts}  </details>\n"
    )


def _pretty(text):
    return transcript.pretty_json(text) if isinstance(text, str) and text[:1] in "{[" else text


def _part(p, mid) -> str:
    if p.kind == "text":
        text = p.text if isinstance(p.text, str) else ""
        return f'  <div class="md">{render_markdown(text)}</div>\n'
    if p.kind == "image":
        url = escape(p.url)
        short = escape(truncatechars(p.url, 120))
        if p.inline_image:
            return f'  <img class="part-image" src="{url}" alt="image attached to message {mid}">\n'
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
