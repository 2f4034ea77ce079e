"""The index table's rows and badges, built in Python (hermes_ui/search/table.py): every
value escaped, the same marks the template gave; and the filter bar's kept field HTML."""

import pytest

from hermes_ui.search import table
from hermes_ui.search.badges import Badge
from hermes_ui.search.forms import IndexQuery

EVIL = "<script>alert('x')</script>\"&"
ESCAPED = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&quot;&amp;"


def _row(**extra) -> dict:
    return {
        "id": "plain",
        "title": "A title",
        "kind": "root",
        "source": "cli",
        "message_count": 1234,
        "last_active": 1_700_000_000.0,
        "preview": "hello",
        "ended_at": None,
        "end_reason": None,
        "parent_session_id": None,
        "former_parent_id": None,
        "child_count": 0,
        "visible_in_default_list": True,
        **extra,
    }


def test_a_hostile_row_is_escaped_everywhere():
    marks = [Badge(EVIL, title=EVIL, colour="red", kind="tag")]
    html = table.row_html(
        "local",
        _row(
            id=EVIL,
            title=EVIL,
            source=EVIL,
            preview=EVIL,
            end_reason=EVIL,
            kind=EVIL,
            badges=marks,
        ),
    )
    assert "<script>" not in html and "alert('x')" not in html
    assert f'value="{ESCAPED}" aria-label="Select {ESCAPED}" data-select-row' in html
    assert f'<code title="{ESCAPED}">' in html
    assert f'<td class="preview">{ESCAPED}</td>' in html
    assert f'<span class="reason">{ESCAPED}</span>' in html
    assert (
        f'<span class="badge badge-red badge-kind-tag" title="{ESCAPED}">{ESCAPED}</span>' in html
    )
    # The id is one percent-encoded path segment of the link.
    assert 'href="/e/local/sessions/%3Cscript%3Ealert%28%27x%27%29%3C%2Fscript%3E%22%26/"' in html


def test_a_row_shows_the_same_marks_as_the_template_did():
    plain = table.row_html("local", _row())
    assert '<a href="/e/local/sessions/plain/">A title</a>\n' in plain  # no badges, no space
    assert '<td class="num">1,234</td>' in plain
    assert '<span class="kind kind-root">root</span>' in plain
    assert '<span class="state open">open</span>' in plain
    assert '<span class="muted">—</span>' in plain  # no lineage
    assert "tipnote" not in plain
    assert '<time datetime="2023-11-14T22:13:20+00:00" title="2023-11-14 22:13:20 UTC"' in plain
    other = table.row_html(
        "local",
        _row(
            title="",
            kind="branch",
            source="",
            message_count=None,
            last_active=None,
            end_reason="cli_close",
            parent_session_id="p",
            child_count=1,
            visible_in_default_list=False,
        ),
    )
    assert '<em class="muted">untitled</em></a>' in other
    assert '<div class="tipnote">not in the default list</div>' in other
    assert "<td>—</td>" in other and '<td class="num">—</td>' in other
    assert '<span class="state closed">closed</span> <span class="reason">cli_close</span>' in other
    assert '<a href="/e/local/lineage/plain/">graph (1 child)</a>' in other
    many = table.row_html("local", _row(child_count=3, kind="continuation"))
    assert "graph (3 children)" in many
    assert "tipnote" not in table.row_html(
        "local", _row(kind="delegate", visible_in_default_list=False)
    )


def test_badges_keep_their_order_colour_and_kind():
    html = table.badges_html(
        [Badge("one", kind="Review Label"), Badge("two", title="", colour="blue")]
    )
    assert html == (
        '<span class="badge badge-grey badge-kind-review-label">one</span>'
        '<span class="badge badge-blue">two</span>'
    )


@pytest.mark.django_db
def test_the_filter_bar_keeps_only_empty_fields_and_follows_their_choices():
    def bar(data, sources):
        form = IndexQuery(data)
        form.offer_sources(sources)
        form.is_valid()
        return form

    first = bar({}, ["cli"])
    assert first["source"].as_field_group() is first["source"].as_field_group()  # kept
    assert '<option value="cli">' in str(first["source"].as_field_group())
    newer = bar({}, ["cli", "telegram"])  # a sync found another source
    assert '<option value="telegram">' in str(newer["source"].as_field_group())
    typed = [bar({"q": q}, ["cli"])["q"].as_field_group() for q in ("refund", "<b>x</b>")]
    assert 'value="refund"' in typed[0] and 'value="&lt;b&gt;x&lt;/b&gt;"' in typed[1]
    assert bar({"q": "refund"}, [])["q"]._cache_key() is None  # typed text is never kept
    chosen = bar({"kind": "branch"}, [])
    assert '<option value="branch" selected>' in str(chosen["kind"].as_field_group())


def test_the_save_forms_hidden_fields_keep_only_empty_values():
    from hermes_ui.saved_views.forms import NameForm, SaveViewForm

    empty = SaveViewForm(initial={}, auto_id="id_save_%s")
    assert str(empty["source"]) is str(empty["source"])  # kept
    assert str(empty["source"]) == '<input type="hidden" name="source" id="id_save_source">'
    typed = SaveViewForm(initial={"q": "<i>refund</i>"}, auto_id="id_save_%s")
    assert 'value="&lt;i&gt;refund&lt;/i&gt;"' in str(typed["q"])
    assert typed["q"]._cache_key() is None
    assert NameForm()["name"]._cache_key() is None  # forms that do not opt in
