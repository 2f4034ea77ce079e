"""The one-line GET bars render through partials/field_inline.html: labels, help text
and choices come from their form classes, ids stay what tests and scripts use."""

from hermes_ui.audit.forms import AuditFilter
from hermes_ui.export.forms import ExportQuery
from hermes_ui.search.forms import IndexQuery
from hermes_ui.sessions.forms import ListQuery, SessionPageQuery


def test_the_list_bar_offers_the_sources_seen_and_says_the_filter_is_exact():
    query = ListQuery({"source": "cron", "children": "1"})
    query.offer_sources(["cli", "cron"])
    assert query.is_valid()
    source = query["source"].as_field_group()
    assert '<label for="id_source">Source</label>' in source
    assert '<option value="">All sources</option>' in source  # cron is chosen
    assert '<select name="source" aria-describedby="id_source_helptext" id="id_source">' in source
    assert '<option value="cron" selected>cron</option>' in source
    assert '<span class="hint" id="id_source_helptext">The source filter is exact.' in source
    assert 'aria-describedby="id_source_helptext"' in source
    assert '<div class="field">' not in source  # one line, not the stacked group
    children = query["children"].as_field_group()
    assert 'value="1"' in children and "checked" in children
    assert "Include children (admin)</label>" in children


def test_a_bad_parameter_is_left_to_the_results_banner():
    form = IndexQuery({"q": "two\nlines", "kind": "nonsense"})
    form.offer_sources([])
    assert not form.is_valid() and "q" in form.errors and "kind" in form.errors
    for name in ("q", "kind"):
        html = form[name].as_field_group()
        # The bar is not re-rendered by htmx: an error or aria-invalid there would go stale.
        assert "field-error" not in html and "aria-invalid" not in html and "_error" not in html
    q = form["q"].as_field_group()
    assert 'type="search"' in q and 'aria-describedby="search-syntax"' in q
    assert "data-search" in q and "two\nlines" in q


def test_the_audit_bar_keeps_its_ids():
    query = AuditFilter({"capability": "session_create"})
    query.offer(usernames=["ada"], capabilities=["session_create"], endpoints_seen=["local"])
    html = "".join(query[n].as_field_group() for n in ("user", "capability", "session", "since"))
    assert '<label for="f-cap">Capability</label>\n<select name="capability" id="f-cap">' in html
    assert '<option value="session_create" selected>' in html
    assert '<option value="" selected>Anyone</option>' in html
    assert '<label for="f-session">Session id</label>' in html and 'maxlength="300"' in html
    assert '<label for="f-since">From</label>\n<input type="date"' in html


def test_the_find_box_is_labelled_and_asks_for_words():
    html = SessionPageQuery({"find": "needle"})["find"].as_field_group()
    assert '<label for="id_find">Find in this transcript</label>' in html
    assert 'type="search"' in html and 'value="needle"' in html and "required" in html


def test_the_export_box_shows_masking_fixed_on_for_support_only():
    support = ExportQuery.offered(always_redacted=True)["redact"].as_field_group()
    assert "checked" in support and "disabled" in support and 'value="1"' in support
    assert "Mask secrets and personal data (always on for support)</label>" in support
    assert support.startswith('<label><input type="checkbox" name="redact"')  # box first
    other = ExportQuery.offered(always_redacted=False)
    assert "checked" not in other["redact"].as_field_group()
    assert '<option value="md">Markdown</option>' in other["format"].as_field_group()


def test_the_export_checkbox_does_not_guess_what_a_query_value_means():
    query = ExportQuery({"format": "md", "redact": "0", "lineage": "yes"})
    assert query.is_valid()
    assert query.cleaned_data["redact"] is False and query.cleaned_data["lineage"] is True
    assert "checked" not in query["redact"].as_field_group()
    assert "checked" in query["lineage"].as_field_group()
