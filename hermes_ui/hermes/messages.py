"""Reading a transcript whole, on every Hermes release."""

from __future__ import annotations

from hermes_ui.hermes import errors as e

PAGE = 500  # the newer servers' cap on ``limit``


class IncompleteTranscript(e.HermesError):
    """A page failed half-way: ``partial`` holds the pages read before it (never the whole)."""

    def __init__(self, partial: dict, cause: e.HermesError):
        read = len(partial["data"])
        super().__init__(
            f"Hermes answered the first {read:,} messages of this transcript, then the next "
            f"page failed: {cause.message} Everything after message {read:,} is missing.",
            code="incomplete_transcript",
            operation="session_messages",
            status=cause.status,
        )
        self.partial = partial
        self.cause = cause


def read_whole(client, session_id: str) -> dict:
    """The whole active transcript: ``{"object", "session_id", "data"}``, and
    ``ancestor_rows`` from a paging server."""
    first = client.messages_page(session_id, order="oldest", limit=PAGE, offset=0)
    if not _paged(first):
        return first  # 0.15-0.19: the whole transcript, exactly as Hermes sent it
    rows = list(first["data"])
    seen = _ids(rows)
    page = first
    while _full(page):
        try:
            page = client.messages_page(session_id, order="oldest", limit=PAGE, offset=len(rows))
        except e.HermesError as error:
            raise IncompleteTranscript(_whole(first, rows), error) from None
        fresh = _ids(page["data"])
        if not _paged(page) or (page["data"] and fresh <= seen):
            # A page that stops paging or only repeats rows never ends: not a transcript.
            raise IncompleteTranscript(_whole(first, rows), _repeating()) from None
        seen |= fresh
        rows += page["data"]
    return _whole(first, rows)


def read_latest(client, session_id: str, count: int) -> tuple[dict, bool]:
    """``(payload, whole)``: at least the last ``count`` messages, in one call.

    A paging server answers just them (``whole`` False); an older release
    answers the whole transcript (``whole`` True).
    """
    page = client.messages_page(session_id, order="latest", limit=min(count, PAGE), offset=0)
    if not _paged(page):
        return page, True
    return _whole(page, page["data"]), False


def _paged(page: dict) -> bool:
    return isinstance(page.get("pagination"), dict)


def _full(page: dict) -> bool:
    limit = page["pagination"].get("limit")
    limit = limit if isinstance(limit, int) and limit > 0 else PAGE
    return bool(page["data"]) and len(page["data"]) >= limit


def _ids(rows: list) -> set:
    return {row.get("id") if isinstance(row, dict) else id(row) for row in rows}


def _whole(first: dict, rows: list) -> dict:
    """One payload of ``rows``: the resolved session's own, its ancestors' apart."""
    resolved = first["session_id"]
    own, ancestors, seen = [], [], set()
    for row in rows:
        key = row.get("id") if isinstance(row, dict) else None
        if key is not None:
            if key in seen:
                continue  # a row that moved across a page boundary while we read
            seen.add(key)
        if isinstance(row, dict) and row.get("session_id") not in (None, resolved):
            ancestors.append(row)
        else:
            own.append(row)
    payload = {k: v for k, v in first.items() if k not in ("data", "pagination")}
    payload.update(data=own, ancestor_rows=ancestors)
    return payload


def _repeating() -> e.HermesError:
    return e.MalformedResponse(
        "Hermes answered the same page again instead of the next one.",
        code="malformed_response",
        operation="session_messages",
    )
