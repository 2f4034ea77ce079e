"""What the session page shows of notes and corrections, computed once per request.

The page draws up to thousands of messages; each asks for its marks (note
count, corrections as diffs, links). ``for_page`` reads the whole session's
counts and corrections in two queries and keeps them on the request, so a
message costs no query. The counts include the session's own thread: the notes
panel, drawn first, reads them and skips the thread's query when it is empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermes_ui.access.rules import RANK, role_here
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.review import corrections, notes
from hermes_ui.review.note_forms import NoteForm
from hermes_ui.web.links import session_url
from hermes_ui.web.roles import REVIEWER, SUPPORT

_CACHE = "_review_note_marks"


@dataclass
class MessageMarks:
    message_id: int
    note_count: int
    thread_url: str
    correct_url: str | None  # None: this user cannot correct this message
    corrections: list[corrections.Shown] = field(default_factory=list)
    has_mine: bool = False


class PageMarks:
    def __init__(
        self, ep: Endpoint, session_id: str, user, counts: dict[int | None, int], role=None
    ):
        self.ep, self.session_id, self.user = ep, session_id, user
        self.counts = counts  # a message id is never None: the session's own count is ignored
        self.corrections = corrections.for_session(ep, session_id)
        # ``role``: the person's role on this session (its endpoint and source).
        self.may_correct = _at_least(role, REVIEWER)
        # Each message's links differ only in ``message=``: reversed once for the page.
        self._thread = _with_message(session_url(ep.id, session_id, "review_notes"))
        self._correct = _with_message(session_url(ep.id, session_id, "review_correction"))

    def message(self, message) -> MessageMarks:
        """The marks of one transcript message (``hermes.transcript.Message``)."""
        mid = message.id
        found = self.corrections.get(mid, [])
        correctable = self.may_correct and message.role == corrections.CORRECTABLE_ROLE
        return MessageMarks(
            message_id=mid,
            note_count=self.counts.get(mid, 0),
            thread_url=self._thread + str(mid),
            correct_url=self._correct + str(mid) if correctable else None,
            corrections=corrections.shown(message.row, found),
            has_mine=any(c.author_id == self.user.pk for c in found),
        )


def _at_least(role: str | None, needed: str) -> bool:
    return role is not None and RANK[role] >= RANK[needed]


def _with_message(url: str) -> str:
    return url + ("&" if "?" in url else "?") + "message="


def _memo(request) -> dict:
    cached = getattr(request, _CACHE, None)
    if cached is None:
        cached = {}
        setattr(request, _CACHE, cached)
    return cached


def page_counts(request, ep: Endpoint, session_id: str) -> dict[int | None, int]:
    """The session's note counts (``notes.counts``), read once per request."""
    cached, key = _memo(request), ("counts", ep.id, session_id)
    if key not in cached:
        cached[key] = notes.counts(ep, session_id)
    return cached[key]


def for_page(request, ep: Endpoint, session_id: str) -> PageMarks:
    cached, key = _memo(request), (ep.id, session_id)
    if key not in cached:
        counts = page_counts(request, ep, session_id)
        role = role_here(request, ep.id)
        cached[key] = PageMarks(ep, session_id, request.user, counts, role)
    return cached[key]


def thread(
    request, ep: Endpoint, session_id: str, message_id: int | None, form=None, counts=None
) -> dict:
    """A thread as ``review/_thread.html`` draws it: its notes, what the user may do, the form.
    ``counts``: the session's note counts when already read (the session page): a thread
    they count no note in is not read."""
    user = request.user
    empty = counts is not None and not counts.get(message_id)
    found = [] if empty else notes.thread(ep, session_id, message_id)
    query = {} if message_id is None else {"message": message_id}
    return {
        "dom_id": "notes" if message_id is None else f"notes-msg-{message_id}",
        "message_id": message_id,
        "session_id": session_id,
        "notes": [(note, notes.may_delete(user, note)) for note in found],
        "post_url": session_url(ep.id, session_id, "review_notes", **query),
        "back_url": back_url(ep, session_id, message_id),
        "may_add": _at_least(role_here(request, ep.id), SUPPORT),
        "form": form or NoteForm(initial={"message": message_id}, auto_id=_auto_id(message_id)),
    }


def note_form(data, message_id: int | None) -> NoteForm:
    return NoteForm(data, auto_id=_auto_id(message_id))


def _auto_id(message_id: int | None) -> str:
    # Several threads may be open on one page: each form's fields get ids of their own.
    return "id_note_session_%s" if message_id is None else f"id_note_{message_id}_%s"


def back_url(ep: Endpoint, session_id: str, message_id: int | None) -> str:
    """The session page at the thread: the message (its chunk, anchored) or the notes region."""
    if message_id is None:
        return session_url(ep.id, session_id) + "#notes"
    return session_url(ep.id, session_id, upto=message_id) + f"#msg-{message_id}"


def correction_url(ep: Endpoint, session_id: str, message_id: int) -> str:
    return session_url(ep.id, session_id, "review_correction", message=message_id)
