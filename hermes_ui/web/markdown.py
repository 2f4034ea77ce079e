"""Markdown from transcripts, rendered and then sanitized.

Raw HTML is disabled in the parser and the output still goes through an
allowlist sanitizer, so a transcript can never inject markup or script.
"""

import functools
import re
from html import escape

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    ["table", "strikethrough"]
)

_TAGS = {
    "p",
    "br",
    "hr",
    "em",
    "strong",
    "del",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}


# Text made only of these characters, with no line indented, ending in a space
# or opening with a number (an ordered list), holds no Markdown: its rendering
# is its paragraphs, escaped. Anything else goes through the parser.
_PLAIN = re.compile(r"[A-Za-z0-9 \n,.;:?'\"()/%$@]*")
_NOT_PLAIN_LINE = re.compile(r"(?:^|\n)(?: |\d)| \n| $")
_PARAGRAPHS = re.compile(r"\n{2,}")


def _plain_html(text: str) -> str | None:
    """The parser's output for text without markup (None when there may be some)."""
    if not _PLAIN.fullmatch(text) or _NOT_PLAIN_LINE.search(text):
        return None
    paragraphs = [p for p in _PARAGRAPHS.split(text.strip("\n")) if p]
    return "".join(f"<p>{escape(p)}</p>\n" for p in paragraphs)


# The same text renders the same: a session viewed again (support does, all day)
# skips the parser and the sanitizer for its shorter messages. Bounded in entries
# and in the length of a text kept (at most a few MB a process).
_KEPT_CHARS = 2000


def render_markdown(text: str) -> SafeString:
    text = text or ""
    return _kept(text) if len(text) <= _KEPT_CHARS else _render(text)


@functools.lru_cache(maxsize=2048)
def _kept(text: str) -> SafeString:
    return _render(text)


def _render(text: str) -> SafeString:
    html = _plain_html(text)
    if html is None:
        html = _md.render(text)
    # Both paths are sanitized: the fast one only skips the parser, never nh3.
    clean = nh3.clean(
        html,
        tags=_TAGS,
        attributes={"a": {"href", "title"}, "th": {"align"}, "td": {"align"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(clean)  # noqa: S308 - sanitized by nh3 just above
