"""Keeping the index in step with an endpoint's session lists.

Incremental refreshes, list sweeps and recheck sweeps; why each exists and what
it costs Hermes is in docs/development/index-and-search.md.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import Value
from django.db.models.functions import Greatest
from django.utils import timezone

from hermes_ui.hermes import HermesError, client_for
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.pages import Page, list_pages
from hermes_ui.index import (
    content_store,
    lease,
    missing_parents,
    stopping,
    store,
    sweeps,
    touched,
)
from hermes_ui.index.lease import LeaseLost, acquire
from hermes_ui.index.maintenance import refresh_statistics
from hermes_ui.index.models import IndexedSession, IndexSyncState
from hermes_ui.index.pacing import GetPacer, PacedClient, PacedGets, Pacer
from hermes_ui.index.sync_state import due_full, state_for  # noqa: F401  (importable here)
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.outages import database_unreachable

log = logging.getLogger("hermes_ui.index")

PAGE = 200
# Rows one sync writes after which PostgreSQL's statistics are refreshed.
ANALYZE_AFTER = 1000
MAX_CONFIRM = 300  # possibly-deleted rows confirmed by GET per sweep
MAX_DANGLING = 20  # unlisted parents fetched by id per sync
RECHECK_BATCH = 100  # sessions a recheck sweep reads between two writes of its cursor


@dataclass
class Report:
    endpoint: str
    full: bool
    list_calls: int = 0
    get_calls: int = 0
    pages: dict = field(default_factory=lambda: {"children": 0, "default": 0})
    rows_seen: int = 0
    duplicates: int = 0
    counts: store.Counts = field(default_factory=store.Counts)
    unconfirmed: int = 0
    rebuilt: int = 0  # rows dropped because the index was another database's
    content_reads: int = 0  # session_messages calls for the content index
    content_messages: int = 0  # messages (re)written to it
    content_dropped: int = 0  # messages no present session reads any more
    seconds: float = 0.0
    skipped: str = ""
    error_code: str = ""
    # A sync asked to stop (SIGTERM, Ctrl-C): the phase, list calls and rows it
    # had reached, so the freshness line and the log can say where it stopped.
    stopped_at: dict = field(default_factory=dict)
    pace: dict = field(default_factory=dict)  # the list calls' pace (``pacing``)
    # A sweep: rows whose default-list visibility followed from the administrative
    # list, rows that needed the default list, and (when it was read to the end)
    # derived rows it contradicted (``sweeps``).
    derived: dict = field(default_factory=dict)
    # A recheck sweep (``sweeps``): sessions rechecked by GET in this run, how many
    # were indexed, where it started (a stopped one resumes after its cursor),
    # and the GETs' pace (``pacing``).
    recheck: bool = False
    rechecked: int = 0
    recheck_total: int = 0
    recheck_from: str = ""
    recheck_pace: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["counts"] = asdict(self.counts)
        return data

    def summary(self) -> str:
        if self.skipped:
            return f"{self.endpoint}: skipped ({self.skipped})"
        c = self.counts
        what = (
            "full sweep by lists"
            if self.full
            else "full sweep by GET"
            if self.recheck
            else "incremental"
        )
        text = (
            f"{self.endpoint}: {what} in "
            f"{self.seconds:.2f} s, {self.list_calls} list calls, {self.get_calls} gets, "
            f"{self.rows_seen} rows seen; +{c.added} added, {c.changed} changed, "
            f"{c.vanished} vanished, {c.reappeared} back, {c.visibility} visibility, "
            f"{c.kinds} kinds"
        )
        if self.recheck:
            text += f"; rechecked {self.rechecked} of {self.recheck_total} sessions by GET"
            if self.recheck_from:
                text += " (resumed)"
        if self.rebuilt:
            text += f"; rebuilt: {self.rebuilt} rows of another database dropped"
        if self.content_reads or self.content_dropped:
            text += (
                f"; transcripts: {self.content_reads} read, {self.content_messages} "
                f"messages written, {self.content_dropped} dropped"
            )
        if self.stopped_at:
            where = self.stopped_at
            return text + (
                f"; stopped on request in phase {where.get('phase', '?')} after "
                f"{where.get('pages', 0)} list calls; the lease is released"
            )
        return text + (f"; stopped: {self.error_code}" if self.error_code else "")


def due(state: IndexSyncState) -> tuple[bool, bool]:
    """(list sweep due, recheck sweep due) now (``sweeps.kind``)."""
    kind = sweeps.kind(state)
    return kind == "list", kind == "recheck"


def sync(
    endpoint: Endpoint,
    *,
    full: bool | None = None,
    recheck: bool | None = None,
    leased: bool = False,
    on_progress=None,
) -> Report:
    """One sync of ``endpoint``; ``full=None`` sweeps only when a sweep is due.

    ``full=True`` is a list sweep (both lists paged to the end); ``recheck=True`` a
    recheck sweep (every indexed session read by GET); ``full=None`` runs whichever
    is due (``sweeps.kind``), ``full=False`` only the incremental refresh.
    ``leased``: the caller already holds the lease (see ``acquire``).
    ``on_progress``: called with each progress dict (``index_sync`` prints them).
    """
    state = state_for(endpoint)
    if full is None:
        full, due_recheck = due(state)
        recheck = due_recheck if recheck is None else recheck
    recheck = bool(recheck) and not full
    report = Report(endpoint.id, full, recheck=recheck)
    if not leased and not acquire(endpoint, full or recheck):
        report.skipped = "another sync of this endpoint is running"
        return report
    started = time.perf_counter()
    try:
        run = _Run(endpoint, state_for(endpoint), report, on_progress)
    except BaseException:
        IndexSyncState.objects.filter(**endpoint.scope()).update(running_since=None)
        raise
    try:
        run.execute()
    except HermesError as error:
        report.error_code = error.code
        log.warning("index sync endpoint=%s stopped code=%s", endpoint.id, error.code)
    except stopping.SyncStopped:
        report.error_code = "stopped"
        report.stopped_at = dict(run.last_progress)
        log.warning(
            "index sync endpoint=%s stopped on request in phase %s after %d list calls",
            endpoint.id,
            run.last_progress.get("phase", "?"),
            report.list_calls,
        )
    except LeaseLost:
        report.error_code = "lease_lost"
        log.warning("index sync endpoint=%s lost its lease to another process", endpoint.id)
    finally:
        report.seconds = time.perf_counter() - started
        try:
            run.finish()
        except DatabaseError as error:
            if database_unreachable(error):
                lease.strand(run.state.pk, run.lease)  # released by this process's next sync
            raise
    log.debug(  # routine; what went wrong was a WARNING above
        "index sync endpoint=%s full=%s recheck=%s calls=%d gets=%d seconds=%.2f",
        endpoint.id,
        full,
        recheck,
        report.list_calls,
        report.get_calls,
        report.seconds,
    )
    return report


INLINE_PENDING = 20  # dashboard actions a page load folds in itself; more wait for a sync


def refresh_now(endpoint: Endpoint, session_id: str) -> store.Counts:
    """Re-read one session (and recent dashboard actions) before drawing its lineage.

    A handful of ``session_get`` calls, never a list call: this runs inside a
    page load. A 404 marks the row vanished (and re-reads its children)
    before the caller's own read reports it; other Hermes errors propagate.
    """
    state = state_for(endpoint)
    mark = touched.pending(endpoint, state.last_audit_id, state.last_fork_id)
    fold = len(mark.session_ids) <= INLINE_PENDING
    ids = [session_id, *(mark.session_ids if fold else [])]
    gen = state.generation + 1
    counts, read = touched.refresh(client_for(endpoint), endpoint, ids, gen)
    update = {}  # type: ignore[var-annotated]
    advanced = (mark.audit_mark, mark.fork_mark) != (state.last_audit_id, state.last_fork_id)
    if fold and advanced:
        update.update(
            last_audit_id=Greatest("last_audit_id", Value(mark.audit_mark)),
            last_fork_id=Greatest("last_fork_id", Value(mark.fork_mark)),
        )
    if counts.any or (fold and advanced):
        # A fork recorded after its child was indexed changes only its kind.
        counts.kinds += store.derive(endpoint, gen, only=read)
    if counts.any:
        update["generation"] = Greatest("generation", Value(gen))
    if update:
        IndexSyncState.objects.filter(pk=state.pk).update(**update)
    return counts


class _Run:
    def __init__(self, endpoint: Endpoint, state: IndexSyncState, report: Report, on_progress=None):
        self.endpoint, self.state, self.report = endpoint, state, report
        self.on_progress = on_progress
        # One list call at a time, paced by Hermes' latency (``pacing``).
        self.pacer = Pacer.from_settings()
        self.client = PacedClient(client_for(endpoint), self.pacer)
        # A recheck sweep's GETs, one at a time with a gap (``pacing``).
        self.get_pacer = GetPacer.from_settings()
        self.gets = PacedGets(client_for(endpoint), self.get_pacer)
        self.cursor = sweeps.recheck_cursor(state)
        self.recheck_done = 0
        self.gen = state.generation + 1
        self.seen: set[str] = set()
        self.changed_pages = 0
        # Dashboard actions up to now are covered by this run; later ones wait.
        self.pending = touched.pending(endpoint, state.last_audit_id, state.last_fork_id)
        self.completed = False
        # The lease this run holds: every write of the state row is fenced by it, so
        # a run that stalled past LEASE and lost it to another process writes nothing.
        self.lease = state.running_since
        self.last_progress: dict = {"phase": "starting", "pages": 0, "rows": 0}
        # A sweep reads the default list to the end only when it confirms (``sweeps``).
        self.confirm = sweeps.confirms(state)
        self.derivation = sweeps.Derivation()
        self.certain: set[str] = set()
        self.as_itself: set[str] = set()
        # For the estimate a page shows: how many rows the index had (0 on a first index,
        # whose size Hermes does not say until its list ends).
        self.started = time.monotonic()
        self.known_total = (
            IndexedSession.objects.filter(**endpoint.scope(), vanished_at__isnull=True).count()
            if report.full
            else 0
        )

    def execute(self) -> None:
        full = self.report.full
        self._page_children()
        if full and self.confirm:
            self._page_default(to_the_end=True)
            self.derivation.disagreed = len(self.certain - self.as_itself)
        elif self.report.counts.any:
            self._page_default(to_the_end=False)
        if full:
            self.report.derived = self.derivation.as_dict()
        if not full:
            self._refresh(self.pending.session_ids)
        else:
            self._confirm_unseen()
        if self.report.recheck:
            self._recheck()
        self._fetch_dangling_parents()
        if self.report.counts.any:
            self._progress("kinds")
            self.report.counts.kinds += store.derive(self.endpoint, self.gen)
        elif self.pending.session_ids:
            # A fork recorded after its child was indexed changes only its kind.
            pending = set(self.pending.session_ids)
            self.report.counts.kinds += store.derive(self.endpoint, self.gen, only=pending)
        self._content()
        if self.report.counts.added + self.report.content_messages >= ANALYZE_AFTER:
            refresh_statistics()
        self.completed = True

    # -- phases ------------------------------------------------------------

    def _pages(self, phase: str, *, include_children: bool) -> Iterator[Page]:
        """Each page, counted in the report. A sweep asks for the next page while this
        one is being written, so the index work hides behind the provider's list call;
        an incremental refresh never asks for a page it may not need."""
        pages = list_pages(
            self.client,  # type: ignore[arg-type]
            include_children=include_children,
            page_size=PAGE,
            ahead=self.report.full,
            before_page=lambda: self._progress(phase),
        )
        for page in pages:
            self.report.list_calls += 1
            self.report.pages["children" if include_children else "default"] += 1
            yield page

    def _page_children(self) -> None:
        for page in self._pages("administrative list", include_children=True):
            self.seen.update(row["id"] for row in page.rows)
            self.report.duplicates += page.duplicates
            self.report.rows_seen += len(page.rows)
            counts = store.upsert(self.endpoint, page.rows, self.gen, listed=True)
            if self.report.full:
                self._derive_visibility(page.rows, counts)
            self.report.counts.add(counts)
            if counts.any:
                self.changed_pages += 1
            elif not self.report.full:
                return  # everything below is older and was unchanged last time too

    def _derive_visibility(self, rows: list[dict], counts: store.Counts) -> None:
        """Certain rows are listed as themselves; a sweep that does not read the default
        list to the end marks them so from the administrative list alone."""
        certain = {row["id"] for row in rows if sweeps.certain(row)}
        self.certain |= certain
        self.derivation.certain += len(certain)
        self.derivation.uncertain += len(rows) - len(certain)
        if not self.confirm and certain:
            shown = {sid: sid for sid in certain}
            counts.visibility += store.set_visible(self.endpoint, shown, {}, self.gen)

    def _page_default(self, *, to_the_end: bool) -> None:
        seen_visible: set[str] = set()
        pages = self._pages("default list", include_children=False)
        for number, page in enumerate(pages, start=1):
            shown, tips = {}, {}
            for row in page.rows:
                root = row.get("_lineage_root_id")
                visible_id = root if isinstance(root, str) and root else row["id"]
                shown[visible_id] = row["id"]
                if visible_id != row["id"]:
                    tips[row["id"]] = visible_id
                else:
                    self.as_itself.add(row["id"])
            seen_visible.update(shown)
            changed = store.set_visible(self.endpoint, shown, tips, self.gen)
            self.report.counts.visibility += changed
            if not to_the_end and not changed and number >= self.changed_pages:
                return
        if to_the_end:
            self.report.counts.visibility += store.hide_unseen(
                self.endpoint, seen_visible, self.gen
            )

    def _refresh(self, session_ids: list[str], *, listed=None) -> None:
        if not session_ids:
            return
        self._progress("dashboard changes")
        counts, read = touched.refresh(
            self.client,
            self.endpoint,
            session_ids,
            self.gen,
            listed=listed,
            beat=lambda: self._progress("dashboard changes"),
        )
        self.report.counts.add(counts)
        self.report.get_calls += len(read)

    def _confirm_unseen(self) -> None:
        indexed = list(
            IndexedSession.objects.filter(
                **self.endpoint.scope(), vanished_at__isnull=True
            ).values_list("session_id", flat=True)
        )
        unseen = [session_id for session_id in indexed if session_id not in self.seen]
        if len(unseen) * 2 > len(indexed):
            self._rebuild(len(unseen), len(indexed))
            return
        self.report.unconfirmed = max(0, len(unseen) - MAX_CONFIRM)
        # Not in the administrative list: deleted, archived, or skipped by a
        # row that moved mid-sweep. Only a 404 proves the first.
        self._refresh(unseen[:MAX_CONFIRM], listed=False)

    def _recheck(self) -> None:
        """Read every indexed session by GET, in id order, from where the last recheck
        stopped: a JSON 404 vanishes it (and re-reads its children), a changed
        counter makes its transcript due, a plain 404 (no session route) stops
        the sweep with ``session_unrouted`` before anything is marked gone."""
        report = self.report
        present = IndexedSession.objects.filter(**self.endpoint.scope(), vanished_at__isnull=True)
        report.recheck_from = self.cursor
        report.recheck_total = present.count()
        todo = list(
            present.filter(session_id__gt=self.cursor)
            .order_by("session_id")
            .values_list("session_id", flat=True)
        )
        self.recheck_done = report.recheck_total - len(todo)
        self._progress("recheck")
        for start in range(0, len(todo), RECHECK_BATCH):
            batch = todo[start : start + RECHECK_BATCH]
            counts, read = touched.refresh(
                self.gets,
                self.endpoint,
                batch,
                self.gen,
                beat=lambda: self._progress("recheck"),
            )
            report.counts.add(counts)
            report.get_calls += len(read)
            report.rechecked += len(batch)
            self.recheck_done += len(batch)
            self.cursor = batch[-1]
            self._progress("recheck")
        self.cursor = ""

    def _rebuild(self, unseen: int, indexed: int) -> None:
        """Most indexed rows are not on this Hermes: the index was another database's.

        Every row this sweep did not see goes (deleted ones' tombstones too);
        what the sweep saw is already written, so that is the rebuilt index.
        Archived parents come back through ``_fetch_dangling_parents``.
        """
        self._progress("rebuilding")
        log.warning(
            "index endpoint=%s: %d of %d indexed sessions are not in the list; the index "
            "belonged to another database and is rebuilt",
            self.endpoint.id,
            unseen,
            indexed,
        )
        rows = IndexedSession.objects.filter(**self.endpoint.scope())
        stale = [sid for sid in rows.values_list("session_id", flat=True) if sid not in self.seen]
        for start in range(0, len(stale), 500):
            with transaction.atomic():
                self.report.rebuilt += rows.filter(
                    session_id__in=stale[start : start + 500]
                ).delete()[0]
        self.report.counts.vanished += unseen

    def _fetch_dangling_parents(self) -> None:
        """Parents that are not listed (archived ones) are read by id, once."""
        scope = self.endpoint.scope()
        known = IndexedSession.objects.filter(**scope).values("session_id")
        dangling = list(
            IndexedSession.objects.filter(**scope, vanished_at__isnull=True)
            .exclude(parent_session_id="")
            .exclude(parent_session_id__in=known)
            .values_list("parent_session_id", flat=True)
            .distinct()[: MAX_DANGLING * 5]
        )
        now = time.monotonic()
        wanted = [p for p in dangling if not missing_parents.recent(self.endpoint, p, now)]
        wanted = wanted[:MAX_DANGLING]
        for parent_id in wanted:
            self.report.get_calls += 1
            try:
                row = self.client.get_session(parent_id).as_row()
            except (e.NotFound, e.InvalidInput):
                missing_parents.remember(self.endpoint, parent_id, now)
                continue
            self.report.counts.add(store.upsert(self.endpoint, [row], self.gen, listed=False))

    def _content(self) -> None:
        """Read the transcripts of new and changed sessions into the content index."""
        report = self.report
        if not settings.HERMES_INDEX_CONTENT:
            report.content_dropped = content_store.drop_all(self.endpoint)
            return
        todo = content_store.due(self.endpoint)
        if todo:
            started = time.monotonic()

            def progress(done: int, total: int) -> None:
                report.content_reads = done
                eta = content_store.eta(done, total, started)
                self._progress(
                    "transcripts", done=done, total=total, eta=None if eta is None else round(eta)
                )

            progress(0, len(todo))
            read = content_store.read(self.endpoint, self.client, todo, progress)
            report.content_reads, report.content_messages = read.reads, read.messages
        if todo or report.full or report.counts.vanished:
            report.content_dropped = content_store.prune(self.endpoint)

    # -- bookkeeping ---------------------------------------------------------

    def _progress(self, phase: str, **extra) -> None:
        stopping.check()
        progress = {
            "phase": phase,
            "pages": self.report.list_calls,
            "rows": self.report.rows_seen,
            "full": self.report.full,
            "pace": self.pacer.as_dict(),
            "lists": 2 if self.report.full and self.confirm else 1,
            **self._recheck_progress(),
            **self._estimate(),
            **extra,
        }
        now = timezone.now()
        held = IndexSyncState.objects.filter(pk=self.state.pk, running_since=self.lease).update(
            running_since=now, progress=progress
        )
        if not held:
            raise LeaseLost
        self.lease = now
        self.last_progress = progress
        if self.on_progress is not None:
            self.on_progress(progress)

    def _recheck_progress(self) -> dict:
        if not self.report.recheck:
            return {}
        return {
            "recheck": {
                "done": self.recheck_done,
                "total": self.report.recheck_total,
                "pace": self.get_pacer.as_dict(),
            },
            "cursor": self.cursor,
        }

    def _estimate(self) -> dict:
        """A sweep of a known index: list calls expected and seconds left, roughly."""
        if not self.report.full or not self.known_total:
            return {}
        lists = 2 if self.confirm else 1
        expected = lists * max(1, -(-self.known_total // PAGE))
        done = self.report.list_calls
        if not done or done >= expected:
            return {"expected": expected}
        per_call = (time.monotonic() - self.started) / done
        return {"expected": expected, "eta": round((expected - done) * per_call)}

    def finish(self) -> None:
        now = timezone.now()
        report = self.report
        report.pace = self.pacer.as_dict()
        if report.recheck:
            report.recheck_pace = self.get_pacer.as_dict()
        kept = self._kept(now)
        update = {"running_since": None, "progress": {}, "last_report": report.as_dict() | kept}
        if report.counts.any:
            update["generation"] = Greatest("generation", Value(self.gen))  # type: ignore[assignment]
        if self.completed:
            update.update(  # type: ignore[call-overload]
                last_sync_at=now,
                # Greatest: a page load may already have folded in later ones.
                last_audit_id=Greatest("last_audit_id", Value(self.pending.audit_mark)),
                last_fork_id=Greatest("last_fork_id", Value(self.pending.fork_mark)),
                last_error_code="",
            )
            if report.full:
                update.update(last_full_at=now, sweep=self.state.sweep + 1)  # type: ignore[call-overload]
            elif report.recheck:
                update.update(last_full_at=now)  # type: ignore[call-overload]
        else:
            update.update(last_error_code=report.error_code or "dashboard_error", last_error_at=now)  # type: ignore[call-overload]
        IndexSyncState.objects.filter(pk=self.state.pk, running_since=self.lease).update(**update)

    def _kept(self, now) -> dict:
        """What outlives the incremental reports after a sweep (``sweeps``): the last
        recheck's duration (the next is not due before several times that; a list
        sweep's until a recheck completed), when the last list sweep ended, and a
        stopped recheck's cursor and the time it spent so far."""
        report, before = self.report, self.state.last_report or {}
        full_seconds = sweeps.full_seconds(self.state)
        spent = before.get("recheck_spent", before.get("verify_spent"))  # the former key
        spent = float(spent) if isinstance(spent, (int, float)) else 0.0
        cursor = sweeps.recheck_cursor(self.state)
        listed_at = sweeps.list_at(self.state)
        if report.full and self.completed:
            listed_at = now
            cursor, spent = "", 0.0  # the lists covered every row
            full_seconds = full_seconds or report.seconds
        elif report.recheck and self.completed:
            full_seconds = spent + report.seconds
            cursor, spent = "", 0.0
        elif report.recheck:
            cursor, spent = self.cursor, spent + report.seconds
        return {
            "full_seconds": full_seconds,
            "list_at": listed_at.isoformat() if listed_at else None,
            "recheck_cursor": cursor,
            "recheck_spent": round(spent, 3),
        }
