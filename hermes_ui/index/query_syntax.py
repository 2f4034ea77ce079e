"""The search box's syntax, parsed into terms and filters (pure; no Django models).

    refund "credit note" deploy* source:telegram kind:branch open:yes
    reason:error,failed role:user after:2026-11-01 before:2026-12-01

Words, ``"phrases"`` and ``prefix*`` must all occur in one message.
``source:``, ``kind:``, ``open:``/``closed:`` (yes/no) filter the session;
``reason:`` keeps sessions closed with one of the end reasons listed (commas);
``role:`` and ``after:``/``before:`` (dates, ``YYYY-MM-DD``) the message.
A value may be quoted (``source:"my bot"``). Anything else with a colon is
searched as text. Mistakes become messages, never exceptions.

Features add filters of their own (``tag:``, ``label:`` …) through
``index.facets``; a negatable one may be written ``-tag:x`` to exclude.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from hermes_ui.index import facets

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
