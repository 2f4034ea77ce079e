"""Transcript Markdown: text without markup skips the parser, and renders exactly the same."""

import pytest

from hermes_ui.web import markdown
from hermes_ui.web.markdown import render_markdown

PLAIN = [
    "Hello world.",
    "Two lines\nin one paragraph",
    "First paragraph.\n\nSecond one.\n\n\n\nThird, after many blank lines.\n",
    "\n\nLeading blank lines",
    'It\'s "quoted" (50% of $3) at a/b @me; ok? yes: fine.',
]
MARKUP = [
    "**bold**",
    "1. a list",
    "2) another",
    "- item",
    " indented",
    "    code",
    "trailing  \nbreak",
    "<script>alert(1)</script>",
    "a & b",
    "# heading",
    "x\n===",
    "[x](https://example.org)",
    "tab\there",
    "text\r\nwith CR",
    "ünïcode",
]


@pytest.mark.parametrize("text", PLAIN)
def test_plain_text_takes_the_fast_path_with_the_parsers_output(text):
    fast = markdown._plain_html(text)
    assert fast is not None
    assert render_markdown(text) == markdown.nh3.clean(
        markdown._md.render(text),
        tags=markdown._TAGS,
        attributes={"a": {"href", "title"}, "th": {"align"}, "td": {"align"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


@pytest.mark.parametrize("text", MARKUP)
def test_anything_that_may_hold_markup_goes_through_the_parser(text):
    assert markdown._plain_html(text) is None


def test_markup_is_still_rendered_and_sanitized():
    assert render_markdown("**bold**") == "<p><strong>bold</strong></p>\n"
    hostile = render_markdown('<script>alert(1)</script> [x](javascript:alert(2)) "q"')
    assert "<script>" not in hostile and 'href="javascript' not in hostile
    assert "&lt;script&gt;" in hostile


def test_a_short_text_is_rendered_once_and_a_long_one_is_not_kept():
    markdown._kept.cache_clear()
    first = markdown.render_markdown("**kept** <script>x</script>")
    assert markdown.render_markdown("**kept** <script>x</script>") == first
    assert "<strong>kept</strong>" in first and "<script>" not in first
    assert markdown._kept.cache_info().hits == 1
    long = "y" * (markdown._KEPT_CHARS + 1)
    assert markdown.render_markdown(long) == f"<p>{long}</p>\n"
    assert markdown._kept.cache_info().currsize == 1  # the long text was not kept
