"""Walking ``sessions_list`` page by page, as the provider contract asks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass

from hermes_ui.hermes.client import MAX_LIST_LIMIT, HermesClient


@dataclass
class Page:
    offset: int  # where this page starts in the list
    rows: list[dict]  # rows with a string id that no earlier page of this walk had
    returned: int  # rows Hermes returned: the offset's advance
    duplicates: int  # rows dropped because an earlier page had their id


def list_pages(
    client: HermesClient,
    *,
    include_children: bool,
    source: str | None = None,
    page_size: int = MAX_LIST_LIMIT,
    max_pages: int | None = None,
    ahead: bool = False,
    before_page: Callable[[], None] | None = None,
) -> Iterator[Page]:
    """Each page of one list, empty ones included, until a short page or ``max_pages``.

    ``ahead``: ask for the next page in a worker thread while the caller works
    on this one (a full index sweep hides its writes behind the provider's
    latency that way); the next page is only asked for after a full one.
    ``before_page``: called before each page is waited for (the index sync
    renews its lease there; what it raises ends the walk).
    """

    def fetch(offset: int) -> dict:
        return client.list_sessions(
            limit=page_size, offset=offset, source=source, include_children=include_children
        )

    seen: set[str] = set()
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="list-page") if ahead else None
    with executor or nullcontext():
        offset, pending, pages = 0, None, 0
        while max_pages is None or pages < max_pages:
            if before_page is not None:
                before_page()
            data = (pending.result() if pending is not None else fetch(offset))["data"]
            pages += 1
            page = _page(offset, data, seen)
            offset += len(data)
            # Newer servers add pinned rows past the limit: a longer page is full too.
            more = len(data) >= page_size and (max_pages is None or pages < max_pages)
            pending = executor.submit(fetch, offset) if more and executor else None
            yield page
            if not more:
                return


def _page(offset: int, data: list, seen: set[str]) -> Page:
    """One answer's rows: those with a string id, each id once per walk."""
    page = Page(offset, [], len(data), 0)
    for row in data:
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            continue
        if row["id"] in seen:
            page.duplicates += 1
            continue
        seen.add(row["id"])
        page.rows.append(row)
    return page


def list_rows(client: HermesClient, **walk) -> Iterator[dict]:
    """Every row of one list, de-duplicated by id (``walk``: ``list_pages``' arguments)."""
    for page in list_pages(client, **walk):
        yield from page.rows
