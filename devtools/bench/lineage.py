"""Benchmark of the session index and lineage pages on a 10,000-session peer.

``python manage.py bench --only lineage`` starts its own real peer (the bench
seed: 10,000 sessions plus a 500-node lineage), then measures in one child
process with its own scratch database (so the dashboard's data is never
touched): a full sync against number-of-pages x one raw list call, an
incremental refresh with nothing changed, the 500-node lineage page cold and
cached, and the index list/search pages against one raw
``GET /api/sessions?limit=50`` on the same peer.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from devtools.bench.child import median_ms

REPO = Path(__file__).resolve().parents[2]


def run(stdout) -> None:
    from devtools.bench.child import measure_in_child, seeded_peer

    with seeded_peer(stdout, "lineage") as (scratch, peer):
        measure_in_child(stdout, "devtools.bench.lineage", scratch, peer)


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    import httpx
    from django.test import Client

    from devtools.peer import demo_ids
    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.index import sync
    from hermes_ui.lineage import picture, render
    from hermes_ui.web.links import session_url

    raw = httpx.Client(
        base_url=ep.base_url, timeout=60, headers={"Authorization": f"Bearer {ep.api_key}"}
    )

    def raw_list(**params):
        return lambda: raw.get("/api/sessions", params=params).raise_for_status()

    raw_children = median_ms(raw_list(limit=200, include_children="true"), 3)
    raw_default = median_ms(raw_list(limit=200), 3)
    raw_50 = median_ms(raw_list(limit=50), 5)
    say(
        f"raw list call: {raw_children:.0f} ms (include_children, limit 200), "
        f"{raw_default:.0f} ms (default, limit 200), {raw_50:.0f} ms (limit 50)"
    )

    report = sync.sync(ep, full=True)
    pages = report.pages
    bound = (pages["children"] * raw_children + pages["default"] * raw_default) / 1000
    say(
        f"full sync: {report.seconds:.1f} s for {report.rows_seen:,} rows, "
        f"{report.list_calls} list calls ({pages['children']} + {pages['default']} pages), "
        f"{report.get_calls} gets; pages x one raw call = {bound:.1f} s; "
        f"ratio {report.seconds / bound:.2f}"
    )
    # The provider's cost grows with the offset, so also: the same pages, raw.
    started = time.perf_counter()
    for children, count in ((True, pages["children"]), (False, pages["default"])):
        for page in range(count):
            params = {"limit": 200, "offset": page * 200}
            if children:
                params["include_children"] = "true"
            raw.get("/api/sessions", params=params).raise_for_status()
    paging = time.perf_counter() - started
    say(
        f"the same {report.list_calls} pages fetched raw (no index work): {paging:.1f} s; "
        f"sync / raw paging = {report.seconds / paging:.2f}"
    )

    again = sync.sync(ep, full=False)
    say(
        f"incremental refresh, nothing changed: {again.list_calls} list call(s), "
        f"{again.get_calls} gets, {again.seconds * 1000:.0f} ms"
    )

    from django.contrib.auth import get_user_model

    ensure_user("bench-reader", "support", secrets.token_urlsafe(16))
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-reader"))
    root = demo_ids.BENCH_LINEAGE_ROOT
    lineage_url = session_url("bench", root, "lineage_page")

    def get(url):
        def action():
            answer = client.get(url)
            assert answer.status_code == 200, answer.status_code
            return answer

        return action

    render.clear_memory()
    started = time.perf_counter()
    cold = get(lineage_url)()
    cold_ms = (time.perf_counter() - started) * 1000
    html = cold.content.decode()
    shown = picture.for_session(ep, root, live=False).display
    mode = html.split('data-render="', 1)[1].split('"', 1)[0]
    cached_ms = median_ms(get(lineage_url), 7)
    again_mode = get(lineage_url)().content.decode().split('data-render="', 1)[1].split('"', 1)[0]
    say(
        f"lineage page, {shown.total}-node lineage ({shown.drawn} drawn, {len(shown.groups)} "
        f"folded delegate groups): cold {cold_ms:.0f} ms ({mode}), cached {cached_ms:.1f} ms "
        f"({again_mode}); target < 50 ms: {'met' if cached_ms < 50 else 'NOT met'}"
    )

    index_ms = median_ms(get("/e/bench/sessions/"), 7)
    search_ms = median_ms(get("/e/bench/sessions/?q=session+0042"), 7)
    filtered_ms = median_ms(get("/e/bench/sessions/?kind=delegate&state=closed"), 7)
    live_ms = median_ms(get("/e/bench/sessions/?offset=0"), 3)
    raw_50_again = median_ms(raw_list(limit=50), 5)
    say(
        f"index list page {index_ms:.1f} ms, search page {search_ms:.1f} ms, filtered page "
        f"{filtered_ms:.1f} ms vs one raw GET /api/sessions?limit=50 {raw_50_again:.0f} ms "
        f"(live list page {live_ms:.0f} ms); target faster than the raw call: "
        f"{'met' if max(index_ms, search_ms) < raw_50_again else 'NOT met'}"
    )


if __name__ == "__main__":
    _measure()
