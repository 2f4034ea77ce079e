"""Snippets cut around the matches of the search box's terms (pure functions)."""

from hermes_ui.search.content_search import highlight
from hermes_ui.search.snippets import marked
from hermes_ui.search.syntax import parse


def shown(text, q, **options):
    return str(highlight(marked(text, parse(q), **options)))


def test_words_phrases_and_prefixes_are_marked_as_the_index_matched_them():
    text = "Done with step 1200. All tests green; step 12 next."
    assert (
        shown(text, '"step 1200"')
        == "Done with <mark>step 1200</mark>. All tests green; step 12 next."
    )
    assert (
        shown(text, "test*") == "Done with step 1200. All <mark>tests</mark> green; step 12 next."
    )
    assert shown(text, "STEP") == (
        "Done with <mark>step</mark> 1200. All tests green; <mark>step</mark> 12 next."
    )
    assert shown("Ärger im Büro", "arger buro") == "<mark>Ärger</mark> im <mark>Büro</mark>"
    assert shown("snake_case_name", "case") == "snake_<mark>case</mark>_name"


def test_a_long_message_is_cut_around_its_best_run_of_matches():
    words = [f"w{i}" for i in range(100)]
    text = " ".join([*words[:60], "refund", "credit", "refund", *words[60:]])
    cut = shown(text, "refund", span=10)
    assert cut.startswith("…w56 w57 w58 w59 <mark>refund</mark> credit <mark>refund</mark>")
    assert cut.endswith("…") and "w0 " not in cut
    assert shown("a b c", "zzz") == "a b c"  # nothing to mark: the start of the text


def test_snippet_text_is_escaped_and_only_matches_become_marks():
    html = shown("<img src=x onerror=alert(1)> & \x02forged\x03", "onerror")
    assert html == "&lt;img src=x <mark>onerror</mark>=alert(1)&gt; &amp;  forged"
