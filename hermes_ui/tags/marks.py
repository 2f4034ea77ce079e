"""Tags in the index: the ``tag:`` filter (``search.facets``) and badges (``search.badges``)."""

from __future__ import annotations

from django.db.models import Q

from hermes_ui.index.models import IndexedSession
from hermes_ui.search.badges import Badge
from hermes_ui.search.facets import Facet
from hermes_ui.tags import tagging
from hermes_ui.tags.models import SessionTag, Tag

HELP = (
    'tag:<name> sessions with this tag (-tag:<name> without; quote a name with spaces: tag:"a b")'
)


def parse(text: str) -> int:
    """The id of the tag named ``text`` (case does not matter)."""
    if not text:
        raise ValueError("takes a tag name, such as tag:refund.")
    found = Tag.objects.filter(name__iexact=text).values_list("pk", flat=True).first()
    if found is None:
        raise ValueError(f"no tag is named {text!r}; admins manage the list of tags.")
    return found


def sessions(endpoint, tag_id: int, user) -> Q:
    """By row id: SQLite then reads the tag's sessions (its index) and looks each row up
    by its unique key, rather than walking the whole index in order testing each row."""
    tagged = SessionTag.objects.filter(tag_id=tag_id, **endpoint.scope()).values("session_id")
    rows = IndexedSession.objects.filter(**endpoint.scope(), session_id__in=tagged)
    return Q(pk__in=rows.values("pk"))


FACET = Facet("tag", parse, sessions, negatable=True, help=HELP)


def badges(endpoint, ids: list[str], user, rows=None) -> dict[str, list[Badge]]:
    return {
        session_id: [Badge(name, "Tag", colour, "tag") for name, colour in tags]
        for session_id, tags in tagging.of_sessions(endpoint, ids).items()
    }
