"""``@name`` in a note: which dashboard users it mentions, and their unread mentions.

A mention is ``@`` followed by a username (letters, digits and ``. + - _``,
ending on a letter or digit, so ``@bob.`` at the end of a sentence is
``bob``). The ``@`` must start a word: ``a@b.com`` (an e-mail address) and
``@@bob`` mention nobody. Only active users who hold a dashboard role are
mentioned; any other ``@word`` stays plain text. A person who may not see
the session cannot be mentioned on it (``unseeing``: the note is refused,
saying who), and a person's mentions list and count hold only the sessions
they may still see (``hermes_ui.access``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from hermes_ui.access import rows as seen
from hermes_ui.access.rules import access_of
from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.platform.endpoints import Endpoint, configured
from hermes_ui.platform.prepared import Prepared
from hermes_ui.review.models import Mention, Note
from hermes_ui.web.links import session_url

READ = "review.mention_read"

_MENTION = re.compile(r"(?<![\w@.+-])@(\w(?:[\w.+-]*\w)?)")
MAX_MENTIONS = 20  # in one note; more names than that are not a conversation


def names(text: str) -> list[str]:
    """The names written as ``@name`` in ``text``: in order, each once."""
    found: list[str] = []
    for match in _MENTION.finditer(text):
        name = match.group(1)
        if name not in found:
            found.append(name)
    return found[:MAX_MENTIONS]


def users(text: str, *, author=None) -> list:
    """The active users with a role that ``text`` mentions, the author left out."""
    wanted = names(text)
    if not wanted:
        return []
    found = seen.people().filter(username__in=wanted)
    if author is not None and author.pk is not None:
        found = found.exclude(pk=author.pk)
    by_name = {user.get_username(): user for user in found}
    return [by_name[name] for name in wanted if name in by_name]


def unseeing(endpoint_id: str, session_id: str, people) -> list[str]:
    """The names of ``people`` who may not see the session: they cannot be mentioned on it."""
    return [
        person.get_username()
        for person in people
        if not seen.may_see(person, endpoint_id, session_id)
    ]


def _seen(mentions, user):
    return seen.visible(mentions, user, endpoint="note__endpoint", session="note__session_id")


# The top bar of every page asks it: compiled once (platform.prepared).
_UNREAD = Prepared(
    lambda user_id: (
        Mention.objects.filter(user_id=user_id, read_at__isnull=True)
        .values("user_id")
        .annotate(n=Count("id"))
        .values_list("n")
        .order_by()
    )
)


def unread_count(user) -> int:
    if not getattr(user, "is_authenticated", False):
        return 0
    found = _UNREAD.first(user.pk)
    if not found or access_of(user).everything:
        return found[0] if found else 0
    # Only mentions on sessions they may still see: asked only when there are any.
    return _seen(Mention.objects.filter(user=user, read_at__isnull=True), user).count()


@dataclass
class Row:
    mention: Mention
    note: Note
    endpoint: Endpoint | None  # None: that endpoint is gone, or now names another server
    url: str | None  # the session page at the note (its message, anchored)


def rows(user, limit: int = 200) -> list[Row]:
    """The user's mentions on sessions they may see, newest first, each with a link to
    where the note is."""
    found = _seen(Mention.objects.filter(user=user), user).select_related("note")[:limit]
    return [_row(mention) for mention in found]


def _row(mention: Mention) -> Row:
    note = mention.note
    ep = configured(note.endpoint, note.endpoint_fp)
    url = None
    if ep is not None and note.message_id is not None:
        url = session_url(ep.id, note.session_id, upto=note.message_id)
        url += f"#msg-{note.message_id}"
    elif ep is not None:
        url = session_url(ep.id, note.session_id) + "#notes"
    return Row(mention, note, ep, url)


def mark_read(user, ids=None) -> int:
    """Mark the user's unread mentions read (those of ``ids``, or all); audited per endpoint."""
    unread = _seen(Mention.objects.filter(user=user, read_at__isnull=True), user)
    if ids is not None:
        unread = unread.filter(pk__in=ids)
    per_endpoint: dict[str, list[int]] = {}
    for pk, endpoint in unread.values_list("pk", "note__endpoint"):
        per_endpoint.setdefault(endpoint, []).append(pk)
    now = timezone.now()
    with transaction.atomic():
        for endpoint, pks in per_endpoint.items():
            Mention.objects.filter(pk__in=pks).update(read_at=now)
            trail.record(
                user,
                capability=READ,
                endpoint=endpoint,
                outcome=Outcome.SUCCESS,
                evidence={"count": len(pks)},
            )
    return sum(len(pks) for pks in per_endpoint.values())
