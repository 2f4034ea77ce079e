"""Marked snippets of a message for the search box's terms (pure; no database).

Only the few messages a result page shows get a snippet, and they are cut
here rather than by the full-text engine: SQLite's ``snippet()`` has to seek
each row in the term's whole doclist, and one cutter gives both databases the same
snippets. Words are split and folded as the full-text indexes do it
(letters and digits, case and diacritics ignored), so what is marked is what
matched. Matches are wrapped in ``content.MARK_START``/``MARK_END``;
``content_search.highlight`` escapes the text and turns them into ``<mark>``.
"""

from __future__ import annotations

import unicodedata

from hermes_ui.index import content
from hermes_ui.search.syntax import WORD, Query

SPAN = 16  # words per snippet, as the ``snippet()`` call this replaces
BEFORE = 4  # words of context kept before the first match
ELLIPSIS = "…"


def fold(word: str) -> str:
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _hits(words: list[str], query: Query) -> list[tuple[int, int]]:
    """(first, last) word index of every occurrence of every term, in order."""
    hits = []
    for term in query.terms:
        wanted = [fold(w) for w in term.words]
        if not wanted:
            continue
        *whole, last = wanted
        n = len(wanted)
        for i in range(len(words) - n + 1):
            tail = words[i + n - 1]
            if words[i : i + n - 1] == whole and (
                tail.startswith(last) if term.prefix else tail == last
            ):
                hits.append((i, i + n - 1))
    return sorted(hits)


def marked(text: str, query: Query, span: int = SPAN) -> str:
    """About ``span`` words of ``text`` around its best run of matches, matches marked."""
    text = text.replace(content.MARK_START, " ").replace(content.MARK_END, " ")
    found = list(WORD.finditer(text))
    if not found:
        return text[:200]
    words = [fold(m.group()) for m in found]
    hits = _hits(words, query)
    start = 0
    if hits:
        # The window holding the most matches, starting a little before one of them.
        starts = {max(0, min(first - BEFORE, len(words) - span)) for first, _ in hits}
        start = max(sorted(starts), key=lambda s: sum(s <= f and t < s + span for f, t in hits))
    end = min(len(words), start + span)
    inside = [(f, t) for f, t in hits if start <= f < end]
    if inside:
        end = max(end, inside[0][1] + 1)  # a phrase longer than the window stays whole
    merged: list[list[int]] = []
    for first, last in (hit for hit in inside if hit[1] < end):
        if merged and first <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    begin = found[start].start() if start else 0
    stop = found[end - 1].end() if end < len(words) else len(text)
    out, at = [ELLIPSIS] if start else [], begin
    for first, last in merged:
        out += [
            text[at : found[first].start()],
            content.MARK_START,
            text[found[first].start() : found[last].end()],
            content.MARK_END,
        ]
        at = found[last].end()
    out.append(text[at:stop])
    if end < len(words):
        out.append(ELLIPSIS)
    return "".join(out).strip()
