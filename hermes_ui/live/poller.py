"""The live round: endpoints a browser watches are re-read every ``HERMES_UI_LIVE_SECONDS``."""

from __future__ import annotations

import logging
import time

from django.utils import timezone

from hermes_ui.hermes import HermesError
from hermes_ui.hermes import errors as e
from hermes_ui.index import sync
from hermes_ui.index.models import IndexedSession
from hermes_ui.live import changes as c
from hermes_ui.live import channel
from hermes_ui.platform.db_steps import release_connections
from hermes_ui.platform.endpoints import Endpoint, all_endpoints

log = logging.getLogger("hermes_ui.live")

SNAPSHOT_ROWS = 400  # top of the activity order read before the sync: its first pages
PRUNE_EVERY = 60.0
_VALUES = ("session_id", "vanished_at", "first_seen_at", "changed_gen", *c.FIELDS)


class Poller:
    """Per-endpoint memory of the last generation published (this process only)."""

    def __init__(self):
        self.seen_gen: dict[str, int] = {}
        self.polled_at: dict[str, object] = {}  # when the last round of each began
        # What the last round saw of the top of the index: the next diffs against it,
        # so rows another writer changed between rounds (the periodic sync, a page
        # load folding in a dashboard action) are published too.
        self.snapshots: dict[str, dict[str, dict]] = {}
        self.pruned_at = 0.0

    def round(self) -> dict[str, int]:
        """One round over the watched endpoints; endpoint id -> changed sessions published."""
        now = time.monotonic()
        if now - self.pruned_at > PRUNE_EVERY:
            channel.prune()
            self.pruned_at = now
        watched = channel.watched()
        published = {}
        for endpoint in all_endpoints():
            if endpoint.id in watched:
                published[endpoint.id] = self.poll(endpoint, watched[endpoint.id])
            else:
                # Unwatched: start afresh next time.
                self.seen_gen.pop(endpoint.id, None)
                self.polled_at.pop(endpoint.id, None)
                self.snapshots.pop(endpoint.id, None)
        return published

    def poll(self, endpoint: Endpoint, sessions: list[str]) -> int:
        scope = endpoint.scope()
        if endpoint.id not in self.seen_gen:
            self.seen_gen[endpoint.id] = sync.state_for(endpoint).generation
        before_gen = self.seen_gen[endpoint.id]
        started = timezone.now()
        since = self.polled_at.get(endpoint.id, started)
        self.polled_at[endpoint.id] = started
        rows = IndexedSession.objects.filter(**scope)
        before = self.snapshots.get(endpoint.id)
        if before is None:
            before = _snapshot(rows, sessions)
        else:
            missing = [s for s in sessions if s not in before]  # a page opened since
            before |= {
                row["session_id"]: row
                for row in rows.filter(session_id__in=missing).values(*_VALUES)
            }
        report = sync.sync(endpoint, full=False)
        error = report.error_code
        for session_id in sessions:
            try:
                sync.refresh_now(endpoint, session_id)
            except e.NotFound:
                pass  # the vanished row is published as "gone"
            except HermesError as exc:
                error = error or exc.code
        # Taken before the changed rows are read: a row changed in between is
        # published now, against the older values, and not lost.
        self.snapshots[endpoint.id] = _snapshot(rows, sessions)
        moved = rows.filter(changed_gen__gt=before_gen)
        changed = list(moved.order_by("-order_key").values(*_VALUES)[: c.MAX_IDS])
        total = moved.count() if len(changed) == c.MAX_IDS else len(changed)
        found = []
        for row in changed:
            new = row["session_id"] not in before and row["first_seen_at"] >= since
            kinds = c.kinds(before.get(row["session_id"]), row, new=new)
            if kinds:
                found.append([row["session_id"], kinds])
        if changed:
            self.seen_gen[endpoint.id] = max(before_gen, *(row["changed_gen"] for row in changed))
        channel.publish(endpoint.id, found, total - len(changed))
        channel.record_poll(endpoint.id, error)
        return len(found)


def _snapshot(rows, sessions: list[str]) -> dict[str, dict]:
    """The top of the activity order and the watched sessions' rows, by id."""
    top = rows.filter(vanished_at__isnull=True).order_by("-order_key")[:SNAPSHOT_ROWS]
    found = {row["session_id"]: row for row in top.values(*_VALUES)}
    missing = [s for s in sessions if s not in found]
    found |= {
        row["session_id"]: row for row in rows.filter(session_id__in=missing).values(*_VALUES)
    }
    return found


_poller = Poller()


def poll_round() -> dict[str, int]:
    """One round of this process's poller (the scheduled ``live`` round)."""
    try:
        return _poller.round()
    finally:
        release_connections()
