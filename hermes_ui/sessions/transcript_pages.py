"""What a session's page and its transcript chunks show: windows, find, links."""

import functools

from django.conf import settings

from hermes_ui.hermes import transcript
from hermes_ui.hermes.messages import IncompleteTranscript
from hermes_ui.sessions import live_tip
from hermes_ui.web import links, session_regions


def row_context(ep, session_id: str, session) -> dict:
    """What the session page draws from the row alone (its title, actions and side
    panels), while the transcript is still on its way."""
    return {
        "regions": session_regions.layout(),
        "endpoint": ep,
        "session": session,
        "session_id": session_id,
        "parent_url": links.session_url(ep.id, session.parent_id) if session.parent_id else None,
    }


class Arriving:
    """The session page's values that come from the transcript, worked out once, when
    the page first needs one (``messages()`` waits for the read still in flight).

    ``lazy()`` gives each value as a callable (a template calls it where it needs
    it); ``{% arrived transcript_arrived %}`` puts them all in the page's context once the
    page reaches its transcript, for the regions after it."""

    KEYS = (
        "long", "latest", "window_size", "start_url", "latest_url", "resolved_id",
        "resolved_differs", "tip_url", "message_total", "transcript", "next_url",
        "window_first", "window_last", "earlier_url", "find", "live_tip", "live_tip_url",
        "incomplete", "ancestors",
    )  # fmt: skip

    def __init__(self, ep, session_id, session, messages, *, finding, focus_id, latest):
        self._ep, self._session_id, self._session = ep, session_id, session
        self._messages = messages
        self._where = {"finding": finding, "focus_id": focus_id, "latest": latest}
        self.incomplete: IncompleteTranscript | None = None

    @functools.cached_property
    def messages(self) -> dict:
        """The transcript; when a page failed half-way, what was read (``incomplete`` says so)."""
        try:
            return self._messages()
        except IncompleteTranscript as error:
            self.incomplete = error
            return error.partial

    @functools.cached_property
    def values(self) -> dict:
        total = getattr(self._session, "message_count", None)
        found = transcript_context(
            self._ep, self._session_id, self.messages, **self._where, total=total
        )
        found.update(live_tip.context(self._ep, self._session, found["resolved_id"]))
        found["incomplete"] = self.incomplete.message if self.incomplete else ""
        return found

    def lazy(self) -> dict:
        values = {key: functools.partial(self._value, key) for key in self.KEYS}
        values["transcript_arrived"] = lambda: self.values  # type: ignore[assignment]
        return values

    def _value(self, key):
        return self.values[key]


def transcript_context(
    ep, session_id: str, messages: dict, *, finding, focus_id, latest=False, total=None
) -> dict:
    """The session page's transcript around ``focus_id`` (a find match, or the ``upto``
    message), or, with ``latest``, its last window: the latest turns, loaded directly."""
    rows = messages["data"]
    size = settings.HERMES_MESSAGES_PAGE_SIZE
    if messages.get("latest_only"):
        return _latest_window(ep, session_id, messages, total)
    if latest and rows:
        start = max(0, len(rows) - size)
        chunk, next_after = rows[start:], None
    else:
        start, chunk, next_after = transcript.page_around(rows, focus_id, size)
    resolved_id = messages["session_id"]
    start_url = links.session_url(ep.id, session_id) + "#transcript-h"
    return {
        "long": len(rows) > size,
        "latest": bool(latest and rows),
        "window_size": len(chunk),
        "start_url": start_url,
        "latest_url": latest_url(ep.id, session_id, rows),
        "resolved_id": resolved_id,
        "resolved_differs": resolved_id != session_id,
        "tip_url": links.session_url(ep.id, resolved_id),
        "message_total": len(rows),
        "transcript": transcript.build(chunk, calls_before(rows, start)),
        "next_url": next_url(ep.id, session_id, next_after),
        "window_first": start + 1,
        "window_last": start + len(chunk),
        # The chunk before this one, when the page opened further down.
        "earlier_url": (
            links.session_url(ep.id, session_id, upto=rows[start - 1].get("id"))
            + f"#msg-{rows[start - 1].get('id')}"
        )
        if start
        else None,
        "find": find_context(ep.id, session_id, finding),
        "incomplete": "",
        # Newer servers include the rows of compression ancestors: they are those
        # sessions' own, so they are named here, not shown a second time.
        "ancestors": [
            (aid, links.session_url(ep.id, aid))
            for aid in sorted({row["session_id"] for row in messages.get("ancestor_rows", ())})
        ],
    }


def _latest_window(ep, session_id: str, messages: dict, total: int | None) -> dict:
    """The latest turns from the last page alone (a paging server): the messages
    before them are not read, so ``total`` (the row's count) numbers the window."""
    rows, size = messages["data"], settings.HERMES_MESSAGES_PAGE_SIZE
    chunk, before = rows[-size:], rows[:-size]
    resolved_id = messages["session_id"]
    if total is None or total < len(chunk) or resolved_id != session_id:
        total = None  # the row counts another session's messages: no numbers then
    first = total - len(chunk) + 1 if total else 1
    earlier = before[-1].get("id") if before else None
    return {
        "long": bool(before),
        "latest": bool(chunk),
        "window_size": len(chunk),
        "start_url": links.session_url(ep.id, session_id) + "#transcript-h",
        "latest_url": latest_url(ep.id, session_id, rows),
        "resolved_id": resolved_id,
        "resolved_differs": resolved_id != session_id,
        "tip_url": links.session_url(ep.id, resolved_id),
        "message_total": total,  # None: unknown, the template says "latest N" only
        "transcript": transcript.build(chunk),
        "next_url": None,
        "window_first": first,
        "window_last": first + len(chunk) - 1,
        "earlier_url": (
            links.session_url(ep.id, session_id, upto=earlier) + f"#msg-{earlier}"
            if before
            else None
        ),
        "find": None,
        "incomplete": "",
        "ancestors": [],
    }


def calls_before(rows: list, start: int) -> dict:
    """Tool calls made before a chunk, so its results name the call they answer
    (only the earlier rows' calls are read: the transcript is built once, for the chunk)."""
    return transcript.calls_in(rows[:start])


def latest_url(endpoint_id: str, session_id: str, rows: list) -> str:
    """The page at its latest turns, scrolled to the last message."""
    url = links.session_url(endpoint_id, session_id, at="latest")
    return f"{url}#msg-{rows[-1].get('id')}" if rows else url


def find_url(endpoint_id: str, session_id: str, finding, position: int) -> str:
    message_id = finding.matches[position - 1]
    url = links.session_url(endpoint_id, session_id, find=finding.text, hit=position)
    return f"{url}#msg-{message_id}"


def find_context(endpoint_id: str, session_id: str, finding) -> dict | None:
    if finding is None:
        return None

    def url(position):
        return find_url(endpoint_id, session_id, finding, position) if position else None

    return {
        "text": finding.text,
        "count": finding.count,
        "current": finding.current,
        "previous_url": url(finding.previous),
        "next_url": url(finding.next),
        "listed": [(n, mid, url(n)) for n, mid in finding.listed],
    }


def next_url(endpoint_id: str, session_id: str, after) -> str | None:
    if after is None:
        return None
    return links.session_url(endpoint_id, session_id, "session_messages", after=after)
