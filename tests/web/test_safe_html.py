"""The places that mark HTML safe carry nothing from Hermes unescaped.

Each drawing below is fed hostile text in every value Hermes (or a user) can
set; the markup must come out as text, and only the markup the dashboard
writes itself survives.
"""

from types import SimpleNamespace

import pytest
from django import forms
from django.template import engines
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from hermes_ui.changes.forms import CreateForm, ForkForm
from hermes_ui.hermes import transcript
from hermes_ui.review.note_forms import NoteForm
from hermes_ui.search.table import badges_html
from hermes_ui.tags.forms import TagForm
from hermes_ui.web.markdown import render_markdown

EVIL = '"><script>alert(1)</script><img src=x onerror=alert(2)>'


def _clean(html: str) -> None:
    assert "<script" not in html
    assert "<img src=x" not in html
    assert "onerror=" not in html.replace("onerror=alert(2)&gt;", "")


class _HelpTextForm(forms.Form):
    plain = forms.CharField(help_text=EVIL)
    written = forms.CharField(help_text=mark_safe("Search with <code>tag:x</code>."))


def test_help_text_is_escaped_unless_the_form_class_marked_it_safe():
    form = _HelpTextForm()
    plain = form["plain"].as_field_group()
    _clean(plain)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in plain
    assert "<code>tag:x</code>" in form["written"].as_field_group()


def test_the_forms_own_markup_in_help_text_still_renders_as_markup():
    assert "<code>api_…</code>" in CreateForm()["session_id"].as_field_group()
    assert "<code>..</code>" in ForkForm()["child_id"].as_field_group()
    assert "<code>@username</code>" in NoteForm()["body"].as_field_group()
    assert "<code>tag:name</code>" in TagForm()["name"].as_field_group()


def _drawn(template, rf, users, mock_endpoint, shown) -> str:
    """Each message drawn by ``template`` as the session page draws it, for a reviewer."""
    request = rf.get("/")
    request.user = users["reviewer"]
    context = {"endpoint": mock_endpoint, "session_id": "s", "can": {"reviewer": True}}
    return "".join(render_to_string(template, {**context, "m": m}, request=request) for m in shown)


def _messages(rf, users, mock_endpoint, shown) -> str:
    """The messages drawn by ``sessions.message_html`` as the session page draws them."""
    request = rf.get("/")
    request.user = users["reviewer"]
    context = {"endpoint": mock_endpoint, "session_id": "s", "can": {"reviewer": True}}
    tag = "{% load transcript_html %}{% transcript_messages shown %}"
    page = engines["django"].from_string(tag)
    return page.render({**context, "shown": shown}, request)


@pytest.mark.django_db
def test_a_message_with_hostile_values_everywhere_draws_them_as_text(rf, users, mock_endpoint):
    rows = [
        {
            "id": EVIL,
            "role": "assistant",
            "content": [
                {"type": "text", "text": EVIL},
                {"type": "image_url", "image_url": {"url": 'javascript:alert(3)"' + EVIL}},
                {"type": EVIL, "x": EVIL},
            ],
            "reasoning": EVIL,
            "finish_reason": EVIL,
            "tool_calls": [
                {
                    "id": EVIL,
                    "type": "function",
                    "function": {"name": EVIL, "arguments": EVIL},
                }
            ],
        },
        {"id": "2", "role": "tool", "tool_call_id": EVIL, "content": EVIL},
        {"id": "3", "role": EVIL, "content": EVIL},
    ]
    shown = transcript.build(rows)
    html = _messages(rf, users, mock_endpoint, shown)
    _clean(html)
    assert 'href="javascript' not in html and 'src="javascript' not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 8


def test_the_markdown_sanitiser_lets_no_markup_or_script_link_through():
    html = render_markdown(EVIL + "\n\n[x](javascript:alert(4)) <a href=x onclick=y>z</a>")
    _clean(html)
    assert 'href="javascript' not in html  # the link stays text
    assert "<a href=x onclick" not in html and "&lt;a href=x onclick=y&gt;" in html


@pytest.mark.django_db
def test_a_features_message_part_gets_its_values_escaped(rf, users, mock_endpoint):
    shown = transcript.build([{"id": EVIL, "role": "assistant", "content": "x"}])
    part = _drawn("review/_message_notes.html", rf, users, mock_endpoint, shown)
    _clean(part)
    assert "message=&quot;&gt;&lt;script" in part


def test_badges_from_other_features_are_escaped():
    badge = SimpleNamespace(colour=EVIL, kind=EVIL, title=EVIL, text=EVIL)
    html = badges_html([badge])
    _clean(html)
    assert 'title="&quot;&gt;' in html
