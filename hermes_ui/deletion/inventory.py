"""What the lists say about an endpoint, paged to the end: the inputs of the consequences."""

from __future__ import annotations

from hermes_ui.hermes.client import HermesClient
from hermes_ui.hermes.pages import list_rows

# A runaway guard: 5,000 pages of 200 is a million rows, the provider's offset cap.
_MAX_PAGES = 5_000


def all_rows(client: HermesClient) -> list[dict]:
    """The administrative list (``include_children=true``), de-duplicated by id.

    Activity can move rows between pages while this runs; the execution
    lists again and compares, which is the contract's "re-list when a
    complete inventory matters".
    """
    return list(list_rows(client, include_children=True, max_pages=_MAX_PAGES))


def visible_ids(client: HermesClient) -> set[str]:
    """Ids the default list shows as themselves. A compression tip shown for its root
    does not count: that row stands in for the root, it is not a sighting of the tip."""
    return {
        row["id"]
        for row in list_rows(client, include_children=False, max_pages=_MAX_PAGES)
        if row.get("_lineage_root_id") in (None, "", row["id"])
    }
