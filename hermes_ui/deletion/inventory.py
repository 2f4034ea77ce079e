"""What the lists say about an endpoint, paged to the end: the inputs of the consequences."""

from __future__ import annotations

from collections.abc import Iterator

from hermes_ui.hermes.client import MAX_LIST_LIMIT, HermesClient

# A runaway guard: 5,000 pages of 200 is a million rows, the provider's offset cap.
_MAX_PAGES = 5_000


def _rows(client: HermesClient, *, include_children: bool) -> Iterator[dict]:
    """Every row of one list. The offset advances by the rows returned and the walk
    stops on a short or empty page (``has_more`` only says the page was full)."""
    offset = 0
    for _ in range(_MAX_PAGES):
        page = client.list_sessions(
            limit=MAX_LIST_LIMIT, offset=offset, include_children=include_children
        )
        data = page["data"]
        yield from (row for row in data if isinstance(row, dict) and isinstance(row.get("id"), str))
        offset += len(data)
        if len(data) < MAX_LIST_LIMIT:
            return


def all_rows(client: HermesClient) -> list[dict]:
    """The administrative list (``include_children=true``), de-duplicated by id.

    Activity can move rows between pages while this runs; the execution
    lists again and compares, which is the contract's "re-list when a
    complete inventory matters".
    """
    rows: dict[str, dict] = {}
    for row in _rows(client, include_children=True):
        rows.setdefault(row["id"], row)
    return list(rows.values())


def visible_ids(client: HermesClient) -> set[str]:
    """Ids the default list shows as themselves. A compression tip shown for its root
    does not count: that row stands in for the root, it is not a sighting of the tip."""
    return {
        row["id"]
        for row in _rows(client, include_children=False)
        if row.get("_lineage_root_id") in (None, "", row["id"])
    }
