"""The review filters of the index search: ``label:<field>=<value>``, ``reviewed:``, ``queue:``."""

from __future__ import annotations

import re

from django.db.models import Q

from hermes_ui.review import consensus
from hermes_ui.review.models import Review
from hermes_ui.search import facets

_FIELD = re.compile(r"[A-Za-z0-9_.-]{1,60}")
_YES = {"yes", "y", "true", "1"}
_NO = {"no", "n", "false", "0"}


def parse_label(text: str) -> tuple[str, str]:
    field, sep, value = text.partition("=")
    field, value = field.strip(), value.strip()
    if not sep or not field or not value:
        raise ValueError(f"takes a field and a value, like label:resolved=yes (not {text!r}).")
    if not _FIELD.fullmatch(field):
        raise ValueError(f"{field!r} is no rubric field name (letters, digits, _ . -).")
    if len(value) > 200:
        raise ValueError("the value is longer than 200 characters.")
    return field, value


def labelled(ep, wanted: tuple[str, str], user) -> Q:
    field, value = wanted
    ids = consensus.labels(ep).filter(field=field, value__iexact=value).values("session_id")
    return Q(session_id__in=ids)


def parse_reviewed(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered not in _YES | _NO:
        raise ValueError(f"takes yes or no (not {text!r}).")
    return lowered in _YES


def reviewed(ep, wanted: bool, user) -> Q:
    done = Review.objects.filter(done=True, item__in=consensus.items(ep))
    match = Q(session_id__in=done.values("item__session_id"))
    return match if wanted else ~match


def parse_queue(text: str) -> str:
    name = text.strip()
    if not name or len(name) > 100:
        raise ValueError("takes the name of a review queue, like queue:refunds.")
    return name


def in_queue(ep, name: str, user) -> Q:
    ids = consensus.items(ep).filter(queue__name__iexact=name).values("session_id")
    return Q(session_id__in=ids)


LABEL = facets.Facet(
    "label",
    parse_label,
    labelled,
    negatable=True,
    help="label:<field>=<value> sessions with that review label (-label: without)",
)
REVIEWED = facets.Facet(
    "reviewed",
    parse_reviewed,
    reviewed,
    help="reviewed:yes|no sessions with (or without) a completed review",
)
QUEUE = facets.Facet(
    "queue",
    parse_queue,
    in_queue,
    negatable=True,
    help="queue:<name> sessions in that review queue (-queue: not in it)",
)
