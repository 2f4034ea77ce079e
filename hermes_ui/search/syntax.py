"""The search box's syntax, parsed into terms and filters (pure; no Django models).

    refund "credit note" deploy* source:telegram kind:branch open:yes
    reason:error,failed role:user after:2026-11-01 before:2026-12-01

Words, ``"phrases"`` and ``prefix*`` must all occur in one message.
``source:``, ``kind:``, ``open:``/``closed:`` (yes/no) filter the session;
``reason:`` keeps sessions closed with one of the end reasons listed (commas);
``role:`` and ``after:``/``before:`` (dates, ``YYYY-MM-DD``) the message.
A value may be quoted (``source:"my bot"``). Mistakes become messages,
never exceptions.

An unknown ``name:value`` is never silent. A name within two edits of a
known filter (``labl:``, ``sorce:``) is an error that suggests it; any other
(``http://…``, ``error:timeout``) is searched as words and leaves a note
saying so (``Query.notes``). A quoted ``"foo:bar"`` is a phrase, without a
note; so is a name that starts with a digit (``10:30``). The known names are
the built-in filters plus whatever ``search.facets`` holds when parsing, so a
filter a feature registers is known at once.

``parse`` is the one reading of the syntax: the index page, review rules,
the dataset export and saved views all go through it (``IndexQuery``), and
any other caller (an API) gets the same ``Query``, with ``errors`` (strings,
and ``typos`` for the unknown names) and ``notes``.

Features add filters of their own (``tag:``, ``label:`` …) through
``search.facets``; a negatable one may be written ``-tag:x`` to exclude.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from hermes_ui.search import facets

_TOKEN = re.compile(r'(?:(-?\w+):)?(?:"([^"]*)"?|(\S+))')
# Words as the full-text indexes split them: letters and digits ("_" separates).
WORD = re.compile(r"[^\W_]+")
_YES = {"yes", "true", "1", "y"}
_NO = {"no", "false", "0", "n"}
FILTERS = ("source", "kind", "open", "closed", "reason", "role", "after", "before")
MAX_REASON = 200  # characters of one end reason (the index column's size)


@dataclass(frozen=True)
class Term:
    text: str
    phrase: bool = False
    prefix: bool = False

    @property
    def words(self) -> list[str]:
        return WORD.findall(self.text.lower())


@dataclass(frozen=True)
class Note:
    """An unknown ``name:`` that was searched as words."""

    name: str  # "foo"
    searched: str  # "foo:bar", as typed

    @property
    def message(self) -> str:
        return f"`{self.name}` is not a filter; searched `{self.searched}` as words"


@dataclass(frozen=True)
class Typo:
    """An unknown ``name:`` close to a known filter: an error."""

    name: str  # "labl"
    suggestion: str  # "label"

    @property
    def message(self) -> str:
        return f"“{self.name}:” is not a filter; did you mean “{self.suggestion}:”?"


@dataclass
class Query:
    terms: list[Term] = field(default_factory=list)
    source: str = ""
    kind: str = ""
    state: str = ""  # "open", "closed" or ""
    reasons: tuple[str, ...] = ()  # closed with one of these end reasons
    role: str = ""
    after: date | None = None
    before: date | None = None
    facets: list[facets.FacetTerm] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    typos: list[Typo] = field(default_factory=list)

    @property
    def has_filters(self) -> bool:
        """Anything but words narrows the sessions (the select-all and the subquery need it)."""
        return bool(self.source or self.kind or self.state or self.reasons or self.facets)

    @property
    def has_text(self) -> bool:
        return any(term.words for term in self.terms)

    @property
    def plain_text(self) -> str:
        """The terms as one string, for the id/title/preview match."""
        return " ".join(term.text for term in self.terms).strip()


def parse(text: str, *, kinds=()) -> Query:
    query = Query()
    for match in _TOKEN.finditer(text or ""):
        key, quoted, bare = match.group(1), match.group(2), match.group(3)
        key = (key or "").lower()
        value = quoted if quoted is not None else (bare or "")
        if key in FILTERS:
            _apply(query, key, value, kinds)
        elif _facet(query, key, value):
            pass
        elif key and _unknown(query, key, match.group(0)):
            pass  # close to a known filter: an error, not a search
        elif quoted is not None:
            if key:
                query.terms.append(Term(key))
            if quoted.strip():
                query.terms.append(Term(quoted.strip(), phrase=True))
        else:
            word = (f"{key}:" if key else "") + (bare or "")
            prefix = word.endswith("*")
            word = word.rstrip("*")
            if WORD.search(word):
                query.terms.append(Term(word, phrase=False, prefix=prefix))
    return query


def known_names() -> list[str]:
    """Every filter name the box takes now: the built-in ones and the registered facets."""
    return [*FILTERS, *(facet.key for facet in facets.all_facets())]


def suggestion(name: str) -> str:
    """The known filter ``name`` is a typo of (within two edits), or ``""``.

    The edits must also be fewer than half the name's letters, so a short
    word such as ``re:`` or ``to:`` is not taken for ``role:`` or ``tag:``.
    """
    best, best_distance = "", 3
    for known in known_names():
        distance = edits(name, known)
        if distance < best_distance and distance * 2 < len(name):
            best, best_distance = known, distance
    return best


def edits(a: str, b: str) -> int:
    """Insertions, deletions, substitutions and swaps of neighbours from ``a`` to ``b``."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            cost = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, previous2[j - 2] + 1)
            row.append(cost)
        previous2, previous = previous, row
    return previous[-1]


def _unknown(query: Query, key: str, typed: str) -> bool:
    """Handle an unknown ``key:``: True when it is an error (a typo of a filter); else it
    is noted and the caller searches it as words. Numbers (``10:30``) are plain words."""
    name = key[1:] if key.startswith("-") else key
    if not name[:1].isalpha():
        return False
    if name in known_names():  # a filter that cannot be negated: ``-source:`` is no filter
        query.notes.append(Note(key, typed))
        return False
    if close := suggestion(name):
        typo = Typo(name, close)
        query.typos.append(typo)
        query.errors.append(typo.message)
        return True
    query.notes.append(Note(name, typed))
    return False


def _facet(query: Query, key: str, value: str) -> bool:
    """A registered feature filter: parsed into ``query.facets``; False if ``key`` is none."""
    negated = key.startswith("-")
    facet = facets.get(key[1:] if negated else key) if key else None
    if facet is None or (negated and not facet.negatable):
        return False
    try:
        parsed = facet.parse(value.strip())
    except ValueError as exc:
        query.errors.append(f"{facet.key}: {exc}")
        return True
    query.facets.append(facets.FacetTerm(facet.key, parsed, negated, f"{key}:{value}"))
    return True


def _apply(query: Query, key: str, value: str, kinds) -> None:
    value = value.strip()
    lowered = value.lower()
    if key == "source":
        query.source = value
    elif key == "kind":
        if kinds and lowered not in kinds:
            query.errors.append(f"kind: must be one of {', '.join(kinds)} (not {value!r}).")
        else:
            query.kind = lowered
    elif key in ("open", "closed"):
        if lowered not in _YES | _NO:
            query.errors.append(f"{key}: takes yes or no (not {value!r}).")
            return
        wants_open = (key == "open") == (lowered in _YES)
        query.state = "open" if wants_open else "closed"
    elif key == "reason":
        _reasons(query, value)
    elif key == "role":
        if not re.fullmatch(r"[a-z_]{1,40}", lowered):
            query.errors.append(
                f"role: takes a role such as user, assistant or tool (not {value!r})."
            )
        else:
            query.role = lowered
    else:
        try:
            setattr(query, key, date.fromisoformat(value))
        except ValueError:
            query.errors.append(f"{key}: takes a date like 2026-11-30 (not {value!r}).")


def _reasons(query: Query, value: str) -> None:
    reasons = tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))
    if not reasons:
        query.errors.append("reason: takes an end reason such as error or cli_close.")
    elif any(
        len(r) > MAX_REASON or any(ord(ch) < 32 or ord(ch) == 127 for ch in r) for r in reasons
    ):
        query.errors.append(
            f"reason: an end reason has at most {MAX_REASON} characters and no control characters."
        )
    else:
        query.reasons = reasons
