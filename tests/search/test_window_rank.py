"""The search window's own BM25: more hits rank first, a longer message with as many lower."""

from hermes_ui.search import window_rank
from hermes_ui.search.syntax import parse


def test_more_occurrences_rank_first_and_length_weighs_against():
    query = parse("deploy")
    texts = [
        "we deploy on friday",
        "deploy deploy deploy, then deploy again",
        "we deploy " + "and talk about other things " * 20,
        "Déploy is not deploy? DEPLOY!",
    ]
    scores = window_rank.scores(texts, query)
    assert scores[1] < scores[0] < scores[2]  # four hits beat one; one in a long text is worst
    assert scores[3] < scores[0]  # case folded: two hits (the accented word is another word)
    assert all(score < 0 for score in scores)


def test_phrases_and_prefixes_count_as_the_full_text_index_matches_them():
    texts = ["release notes for the release", "notes release", "releases noted"]
    phrase = window_rank.scores(texts, parse('"release notes"'))
    assert phrase[0] < 0 and phrase[1] == 0 and phrase[2] == 0
    prefix = window_rank.scores(texts, parse("releas*"))
    assert prefix[0] < 0 and prefix[1] < 0 and prefix[2] < 0  # "releases" too
