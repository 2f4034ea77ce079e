"""Which labels count, and the one value a field has when reviewers disagree."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from django.db.models import Q, QuerySet

from hermes_ui.review.models import Item, Label


def labels(ep) -> QuerySet:
    """The labels that count on endpoint identity ``ep``."""
    done = {"review__done": True, "review__item__state": Item.COMPLETED}
    return Label.objects.filter(**ep.scope(), **done).filter(
        Q(review__authoritative=True) | ~Q(review__item__reviews__authoritative=True)
    )


def items(ep) -> QuerySet:
    return Item.objects.filter(**ep.scope())


def resolve(given: Iterable[tuple[str, bool]]) -> str | None:
    """One field's value from ``(value, authoritative)`` pairs: the authoritative one,
    else the value most reviews gave, else (a tie, or nothing) None."""
    given = list(given)
    for value, authoritative in given:
        if authoritative:
            return value
    ranked = Counter(value for value, _ in given).most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]
