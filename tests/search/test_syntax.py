"""The search box's syntax (pure parser) and the pieces built from it."""

from datetime import date

from hermes_ui.lineage.graph.classify import KINDS
from hermes_ui.search.content_search import fts5_query, highlight, parse_after, ts_query
from hermes_ui.search.syntax import Term, parse


def test_words_phrases_prefixes_and_every_filter():
    q = parse(
        'refund "credit note" deploy* source:telegram kind:branch open:yes role:user '
        "after:2026-11-01 before:2026-12-01",
        kinds=KINDS,
    )
    assert q.terms == [
        Term("refund"),
        Term("credit note", phrase=True),
        Term("deploy", prefix=True),
    ]
    assert (q.source, q.kind, q.state, q.role) == ("telegram", "branch", "open", "user")
    assert (q.after, q.before) == (date(2026, 11, 1), date(2026, 12, 1))
    assert q.errors == [] and q.has_text and q.plain_text == "refund credit note deploy"


def test_open_and_closed_take_yes_or_no_both_ways():
    assert parse("open:no").state == "closed" and parse("closed:yes").state == "closed"
    assert parse("closed:no").state == "open" and parse("OPEN:Yes").state == "open"


def test_quoted_filter_values_and_unknown_keys():
    q = parse('source:"my bot" foo:bar "unterminated phrase')
    assert q.source == "my bot"
    assert q.terms == [Term("foo:bar"), Term("unterminated phrase", phrase=True)]


def test_mistakes_become_messages_not_exceptions():
    q = parse("open:maybe after:yesterday kind:nonsense role:<b>", kinds=KINDS)
    assert len(q.errors) == 4 and not q.has_text
    assert any("open:" in m for m in q.errors) and any("after:" in m for m in q.errors)


def test_filters_alone_have_no_text():
    q = parse("source:cli *")
    assert not q.has_text and q.terms == [] and q.source == "cli"


def test_match_expressions_quote_every_term_so_no_engine_syntax_gets_through():
    q = parse('NEAR(a b) "x" OR y* ünï-çødé')
    # A token with punctuation inside is the phrase of its words, as the index splits them.
    assert fts5_query(q) == '"near a" AND "b" AND "x" AND "or" AND "y" * AND "ünï çødé"'
    assert ts_query(parse('"credit note" dep*')) == "('credit' <-> 'note') & ('dep':*)"
    assert ts_query(parse("it's")) == "('it' <-> 's')"


def test_highlight_escapes_the_text_and_marks_only_the_marked_spans():
    html = highlight("<img src=x onerror=alert(1)> \x02refund\x03 & \x03stray")
    assert str(html) == "&lt;img src=x onerror=alert(1)&gt; <mark>refund</mark> &amp; stray"


def test_result_page_keys_round_trip_and_damage_is_refused():
    assert parse_after("-3.25:ses:with:colons") == (-3.25, "ses:with:colons")
    assert parse_after("nonsense") is None and parse_after("x:y") is None
