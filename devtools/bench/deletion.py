"""Deletion benchmark: what capturing, checking and confirming a deletion costs.

Against a scratch peer seeded with the bench profile (``HERMES_BENCH_SESSIONS``
sessions, default 10,000, plus the 500-node lineage), it times the steps of
one deletion of the lineage root: both lists paged to the end, the pure
consequence computation, the snapshot, then the DELETE and the read-back
that confirms what is gone. It prints figures; it asserts nothing.

    .venv/bin/python manage.py bench --only deletion
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from pathlib import Path

from devtools.peer import demo_ids as ids
from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, run_seed
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.deletion import confirm_gone, inventory, snapshot
from hermes_ui.hermes.client import HermesClient
from hermes_ui.lineage.graph.consequences import compute
from hermes_ui.platform.endpoints import Endpoint


def _timed(fn, *args, **kwargs):
    started = time.perf_counter()
    value = fn(*args, **kwargs)
    return value, (time.perf_counter() - started) * 1000


def run(stdout) -> None:
    count = int(os.environ.get("HERMES_BENCH_SESSIONS", "10000"))
    with tempfile.TemporaryDirectory(prefix="bench-deletion-") as tmp:
        home = Path(tmp)
        python = ensure_peer_venv()
        _, seed_ms = _timed(run_seed, home, "bench", count=count, peer_python=python)
        stdout.write(
            f"seeded {count:,} sessions + {ids.BENCH_LINEAGE_SIZE}-node lineage "
            f"in {seed_ms / 1000:.1f} s"
        )
        peer = Peer(PeerConfig(home=home, peer_python=python))
        peer.start()
        try:
            peer.wait_healthy(60)
            # One INFO line per request would bury the figures.
            quiet = logging.getLogger("hermes_ui.hermes")
            level, quiet.level = quiet.level, logging.WARNING
            try:
                _measure(stdout, HermesClient(Endpoint("bench", peer.base_url, peer.key)))
            finally:
                quiet.setLevel(level)
        finally:
            peer.stop()


def _measure(stdout, client: HermesClient) -> None:
    target = ids.BENCH_LINEAGE_ROOT
    rows, rows_ms = _timed(inventory.all_rows, client)
    visible, visible_ms = _timed(inventory.visible_ids, client)
    snap, snap_ms = _timed(snapshot.take, client, target)
    best = min(
        _timed(compute, rows, target, target_row=snap["row"], visible_ids=visible)[1]
        for _ in range(5)
    )
    found = compute(rows, target, target_row=snap["row"], visible_ids=visible)
    stdout.write(
        f"administrative list: {len(rows):,} rows in {rows_ms:.0f} ms "
        f"({-(-len(rows) // 200)} pages of 200)"
    )
    stdout.write(f"default list (visibility): {len(visible):,} ids in {visible_ms:.0f} ms")
    stdout.write(f"snapshot (get + messages + digest): {snap_ms:.1f} ms")
    stdout.write(
        f"consequences (pure, best of 5): {best:.1f} ms -> {len(found.cascade)} "
        f"delegates deleted, {len(found.survivors)} children survive"
    )
    request_ms = rows_ms + visible_ms + snap_ms + best
    stdout.write(f"capture at request (= re-check at execution): {request_ms:.0f} ms")
    _, delete_ms = _timed(client.delete_session, target, idempotency_key=mint_key())
    cascade = [a.__dict__ for a in found.cascade]
    survivors = [a.__dict__ for a in found.survivors]
    result, confirm_ms = _timed(confirm_gone.after_delete, client, target, cascade, survivors)
    gone = sum(d["state"] == confirm_gone.GONE for d in result["deleted"])
    roots = sum(s["state"] == confirm_gone.ROOT for s in result["survivors"])
    stdout.write(
        f"DELETE: {delete_ms:.1f} ms; confirm gone of {len(cascade) + 1 + len(survivors)}"
        f" ids: {confirm_ms:.0f} ms ({gone} gone, {roots} now roots)"
    )
