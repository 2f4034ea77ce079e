"""Ranking a search's window of matching messages without FTS5's ``bm25()``.

``bm25()`` needs each phrase's number of matching rows over the whole
full-text index, which FTS5 finds by walking the phrase's entire doclist
once per query, a cost growing with the matches although the page shows 20
results.
The search already ranks only a window of the most recently indexed matches
(``content_search.WINDOW``); this ranks that window itself, with BM25's term
saturation and length normalisation over the window's own texts, words
split and folded as the full-text index does (``snippets``). Every message
in the window matches every term, so the inverse document frequency, the
one thing that needed the whole index, weighs all of them alike and drops
out. The work is bounded by the window (and ``CHARS`` of each message),
whatever the number of matches.
"""

from __future__ import annotations

from hermes_ui.search.snippets import _hits, fold
from hermes_ui.search.syntax import WORD, Query

K1, B = 1.2, 0.75  # FTS5's own bm25 constants
CHARS = 2000  # of each message ranked (a tool result may be far longer): bounded work


def scores(texts: list[str], query: Query) -> list[float]:
    """A score per text, lower is better (negative, as ``bm25()`` gives it)."""
    words = [[fold(w) for w in WORD.findall(text or "")] for text in texts]
    if not words:
        return []
    average = max(1.0, sum(len(w) for w in words) / len(words))
    out = []
    for tokens in words:
        tf = len(_hits(tokens, query))
        norm = K1 * (1 - B + B * len(tokens) / average)
        out.append(-(tf * (K1 + 1)) / (tf + norm) if tf else 0.0)
    return out
