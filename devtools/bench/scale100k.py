"""Scale bench at 100,000 sessions: does the dashboard slow down the Hermes it watches?

``python manage.py bench --only scale100k`` (not in ``make test``; about half an
hour) seeds real peers with 10,000 and 100,000 sessions x 10 messages (the
bench profile) under ``data/bench-100k/home-<N>`` and reuses them on later
runs (only a probe session that the chat turns below write to grows). For
each size, in a child process with a fresh dashboard database:

1. Hermes idle: a transcript read (``GET /api/sessions/{id}/messages`` of a
   random session) every 50 ms and a chat turn every second, p95 of each, sent
   by a process of their own (``devtools/bench/probe.py``), as other clients are;
2. the first index (a full sweep reading both lists to the end, and every
   transcript) at full speed, ``HERMES_INDEX_PACE_MAX_STRETCH=1``, as an
   operator would build it in a quiet hour, with the same probes running: its
   duration, list calls, and what it does to Hermes when nothing paces it.
   It gets ``SCALE100K_BUILD_BUDGET`` seconds (default 300); past that it is
   stopped, its duration projected from its list calls, and the index is
   completed straight from the peer's ``state.db`` (``direct_index``, a bench
   shortcut) so that the pages below read an index of the full size;
3. our pages, median of 7: the index page, a rare-word and a common-word
   transcript search, and a session page (which reads Hermes directly);
4. the recheck sweep (the regular full sweep: one list call, then a GET per
   indexed session, ``hermes_ui/index/pacing.py``) idle (for at most
   ``SCALE100K_RECHECK_WINDOW`` seconds, default the sweep window below: set
   it to 1500 to read a whole recheck at 100k rather than project it), then, after a
   fresh idle reading, under the same steady background load (the probes: a
   transcript read every 50 ms, a chat turn a second, a new chat session
   every 20 turns so the chat probe's transcript does not grow through the
   bench): GETs, list calls, duration, sessions a minute, Hermes' p95 during
   it against the fresh idle reading;
5. the list sweep (both lists paged, round 1's sweep, now daily) with the
   default pace settings under the same load, after its own fresh idle
   reading. A paced sweep of a big table is slow on purpose: when a sweep
   would run past ``SCALE100K_SWEEP_WINDOW`` seconds (default 180) it is
   stopped there (the way SIGTERM stops one) and its duration is projected
   from the calls it made, and the output says so.

The parent prints the 10k -> 100k growth of each page. ``SCALE100K_SIZES``
(default ``10000,100000``) runs other sizes, e.g. ``1000,2000`` for a quick
check of the bench itself.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from devtools.bench.probe import Probe

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data" / "bench-100k"
# An idle reading: ~600 transcript reads and 30 chat turns (a p95 of 20 turns is their max).
IDLE_SECONDS = 30
RARE, COMMON = "4242", "question"  # in one session's messages / in half of all messages


def _sizes() -> list[int]:
    raw = os.environ.get("SCALE100K_SIZES", "10000,100000")
    return [int(part) for part in raw.split(",") if part.strip().isdigit()]


def run(stdout) -> None:
    from devtools.peer.launcher import SEED_SCRIPT, Peer, PeerConfig, ensure_peer_venv

    python = ensure_peer_venv()
    DATA.mkdir(parents=True, exist_ok=True)
    stdout.write(
        f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the start "
        "(a shared machine: other work runs beside this bench)"
    )
    results = {}
    for count in _sizes():
        home = DATA / f"home-{count}"
        started = time.perf_counter()
        more = ["--count", str(count)]
        seeded = subprocess.run(
            [str(python), str(SEED_SCRIPT), "--home", str(home), "--profile", "bench", *more],
            capture_output=True,
            text=True,
            timeout=3600,
            check=False,
        )
        if seeded.returncode != 0:
            stdout.write(f"seeding {count:,} failed: {seeded.stderr.strip()[-800:]}")
            return
        summary = json.loads(seeded.stdout)
        how = "reused" if summary.get("already_seeded") else "seeded"
        stdout.write(f"== {count:,} sessions: {how} in {time.perf_counter() - started:.1f} s")
        with (
            Peer(PeerConfig(home=home, peer_python=python)) as peer,
            tempfile.TemporaryDirectory(prefix="ui-", dir=DATA) as scratch,
        ):
            out = Path(scratch) / "figures.json"
            _child(stdout, peer, scratch, count, out)
            if out.exists():
                results[count] = json.loads(out.read_text())
        stdout.write(f"   load average {os.getloadavg()[0]:.1f} after {count:,}")
    _growth(stdout, results)


def _child(stdout, peer, scratch: str, count: int, out: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}},
        "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
        "HERMES_UI_DATA_DIR": str(Path(scratch) / "ui"),
        "HERMES_API_URL": peer.base_url,
        "HERMES_API_KEY": peer.key,
        "HERMES_ENDPOINT_ID": "bench",
        "HERMES_INDEX_REFRESH_SECONDS": "0",
        "HERMES_UI_LOG_LEVEL": "WARNING",
        "BENCH_SIZE": str(count),
        "BENCH_HOME": str(peer.config.home),
        "BENCH_FIGURES": str(out),
    }
    child = subprocess.Popen(
        [sys.executable, "-m", "devtools.bench.scale100k"],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    for line in child.stdout:
        stdout.write("   " + line.rstrip("\n"))
    if child.wait() != 0:
        stdout.write(f"   measurement process failed (exit {child.returncode})")


def _growth(stdout, results: dict) -> None:
    if len(results) < 2:
        return
    small, big = sorted(results)[0], sorted(results)[-1]
    stdout.write(f"== growth {small:,} -> {big:,} sessions (median of 7 each)")
    targets = {"index page": 1.3, "rare search": 1.5, "common search": 1.5, "session page": 1.1}
    for name, target in targets.items():
        a, b = results[small]["pages"][name], results[big]["pages"][name]
        ratio = b / a if a else float("nan")
        verdict = "met" if ratio <= target else "NOT met"
        stdout.write(
            f"   {name}: {a:.1f} -> {b:.1f} ms, {ratio:.2f}x (target <= {target}x: {verdict})"
        )


# -- the child ------------------------------------------------------------------


def _latency(label: str, figures: dict, idle: dict | None = None) -> str:
    text = (
        f"{label}: transcript read p95 {figures['read_p95']:.1f} ms ({figures['reads']} reads), "
        f"chat p95 {figures['chat_p95']:.0f} ms ({figures['chats']} turns)"
    )
    if idle:
        r = figures["read_p95"] / idle["read_p95"]
        c = figures["chat_p95"] / idle["chat_p95"]
        verdict = "met" if max(r, c) <= 1.5 else "NOT met"
        text += f"; {r:.2f}x and {c:.2f}x idle (target <= 1.5x: {verdict})"
    if figures["errors"]:
        text += f"; {figures['errors']} probe errors (first: {figures.get('first_error')})"
    return text


def _median_ms(action, times: int = 7) -> float:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _pages(say, count: int) -> dict:
    import secrets

    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.web.links import session_url

    ensure_user("bench-reader", "support", secrets.token_urlsafe(18))
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-reader"))

    def get(url, **params):
        answer = client.get(url, params)
        assert answer.status_code == 200, (url, answer.status_code)
        return answer

    session = f"bench_{count // 2:05d}"
    pages = {
        "index page": lambda: get("/e/bench/sessions/"),
        "rare search": lambda: get("/e/bench/sessions/", q=RARE),
        "common search": lambda: get("/e/bench/sessions/", q=COMMON),
        "session page": lambda: get(session_url("bench", session)),
    }
    figures = {}
    for name, action in pages.items():
        action()  # warm
        figures[name] = _median_ms(action)
        say(f"{name}: {figures[name]:.1f} ms (median of 7)")
    return figures


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    from django.conf import settings

    from hermes_ui.index import stopping, sync
    from hermes_ui.index.pacing import pace_text

    count = int(os.environ["BENCH_SIZE"])
    window = float(os.environ.get("SCALE100K_SWEEP_WINDOW", "180"))
    probe = Probe(ep.base_url, ep.api_key, count)
    figures: dict = {"size": count}
    probe.start()  # warm up: the first chat turns after a start are slow
    time.sleep(5)
    probe.stop()

    probe.start()
    time.sleep(IDLE_SECONDS)
    idle = figures["idle"] = probe.stop()
    say(_latency("Hermes idle", idle))

    # 2. The first index at full speed, probes running, for as long as the budget allows.
    budget = float(os.environ.get("SCALE100K_BUILD_BUDGET", "300"))
    default_stretch = settings.HERMES_INDEX_PACE_MAX_STRETCH
    settings.HERMES_INDEX_PACE_MAX_STRETCH = 1
    probe.start()
    timer = threading.Timer(budget, stopping.request_stop)
    timer.start()
    build = sync.sync(ep, full=True)
    timer.cancel()
    during = figures["build_latency"] = probe.stop()
    stopping.STOP.clear()
    both = 2 * max(1, math.ceil(count / sync.PAGE))
    if build.error_code == "stopped" and build.stopped_at.get("phase") == "transcripts":
        projected = build.seconds
        how = f"lists done, stopped at its {budget:.0f} s budget while reading transcripts"
    elif build.error_code == "stopped":
        projected = build.seconds * both / max(1, build.list_calls)
        how = (
            f"stopped at its {budget:.0f} s budget after {build.list_calls} of about {both} "
            f"list calls, projected {projected / 60:.0f} min for the lists alone"
        )
    else:
        projected = build.seconds
        how = f"{build.seconds:.0f} s"
    figures["build"] = {
        "seconds": build.seconds,
        "list_calls": build.list_calls,
        "projected": projected,
        "stopped": build.error_code == "stopped",
    }
    say(
        f"first index, unpaced (stretch 1): {how}; {build.list_calls} list calls "
        f"({build.pages['children']} administrative + {build.pages['default']} default), "
        f"{build.content_reads:,} transcripts read; list call p95 {build.pace.get('p95_ms')} ms"
        f"; derived visibility: {build.derived}"
        + (f"; ended: {build.error_code}" if build.error_code else "")
    )
    say(_latency("Hermes during the unpaced first index", during, idle))
    if build.error_code:
        from django.utils import timezone

        from devtools.bench.direct_index import fill
        from hermes_ui.index.models import IndexSyncState

        started = time.perf_counter()
        written = fill(ep, Path(os.environ["BENCH_HOME"]), say)
        # As if that first sweep had completed: the next one is a steady-state sweep.
        IndexSyncState.objects.filter(endpoint="bench").update(last_full_at=timezone.now(), sweep=1)
        settle = sync.sync(ep, full=False)
        say(
            f"index completed straight from state.db (bench shortcut, devtools/bench/"
            f"direct_index.py): {written:,} messages in {time.perf_counter() - started:.0f} s; "
            f"then {settle.summary()}"
        )

    # 3. Our pages.
    figures["pages"] = _pages(say, count)

    # 4. The recheck sweep: idle, then under the steady background load.
    settings.HERMES_INDEX_PACE_MAX_STRETCH = default_stretch
    # The idle recheck may run to its end (SCALE100K_RECHECK_WINDOW, default the sweep window):
    # its wall time at 100k is a target of its own (20 min), better read than projected.
    whole = float(os.environ.get("SCALE100K_RECHECK_WINDOW", window))
    figures["recheck_idle"] = _recheck(say, ep, whole, None)
    idle_v = figures["idle_before_recheck"] = _idle(probe)
    say(_latency("Hermes idle (fresh, before the loaded recheck)", idle_v))
    figures["recheck_loaded"] = _recheck(say, ep, window, probe)
    say(_latency("Hermes during the recheck sweep", figures["recheck_loaded"]["latency"], idle_v))

    # 5. The list sweep at the default pace, under the same load.
    idle_l = figures["idle_before_list"] = _idle(probe)
    say(_latency("Hermes idle (fresh, before the list sweep)", idle_l))
    timer = threading.Timer(window, stopping.request_stop)
    probe.start()
    timer.start()
    sweep = sync.sync(ep, full=True)
    timer.cancel()
    loaded = figures["sweep_latency"] = probe.stop()
    stopping.STOP.clear()
    needed = max(1, math.ceil(count / sync.PAGE)) * (2 if sweep.pages["default"] > 1 else 1)
    if sweep.error_code == "stopped":
        projected = sweep.seconds * needed / max(1, sweep.list_calls)
        how = (
            f"stopped after {sweep.seconds:.0f} s at {sweep.list_calls} of about {needed} list "
            f"calls; projected duration {projected / 60:.0f} min"
        )
    else:
        projected = sweep.seconds
        how = f"{sweep.seconds:.0f} s, {sweep.list_calls} list calls"
    figures["sweep"] = {
        "seconds": sweep.seconds,
        "list_calls": sweep.list_calls,
        "gets": sweep.get_calls,
        "projected": projected,
        "pace": sweep.pace,
    }
    say(
        f"list sweep (target {settings.HERMES_INDEX_PACE_TARGET_MS} ms, min pause "
        f"{settings.HERMES_INDEX_PACE_MIN_PAUSE_MS} ms, stretch {default_stretch}) under a "
        f"transcript read every 50 ms and a chat turn a second: {how}, {sweep.get_calls} GETs; "
        f"{pace_text(sweep.pace, running=True)}; waited {sweep.pace.get('paused_s')} s in pauses"
    )
    say(_latency("Hermes during the list sweep", loaded, idle_l))
    Path(os.environ["BENCH_FIGURES"]).write_text(json.dumps(figures))


def _idle(probe) -> dict:
    probe.start()
    time.sleep(IDLE_SECONDS)
    return probe.stop()


def _recheck(say, ep, window: float, probe) -> dict:
    """One recheck sweep from the first session (``probe``: under the load), at most
    ``window`` seconds; its GETs, list calls, duration and Hermes' latency."""
    from hermes_ui.index import stopping, sync
    from hermes_ui.index.models import IndexSyncState
    from hermes_ui.index.pacing import recheck_text

    state = IndexSyncState.objects.get(endpoint="bench")
    IndexSyncState.objects.filter(pk=state.pk).update(
        last_report={**(state.last_report or {}), "recheck_cursor": "", "recheck_spent": 0}
    )
    timer = threading.Timer(window, stopping.request_stop)
    if probe is not None:
        probe.start()
    timer.start()
    report = sync.sync(ep, full=False, recheck=True)
    timer.cancel()
    latency = probe.stop() if probe is not None else None
    stopping.STOP.clear()
    rate = report.rechecked / report.seconds * 60 if report.seconds else 0.0
    total = report.recheck_total or 1
    projected = report.seconds * total / max(1, report.rechecked)
    how = (
        f"{report.seconds:.0f} s"
        if report.error_code != "stopped"
        else f"stopped after {report.seconds:.0f} s at {report.rechecked:,} of {total:,}; "
        f"projected {projected / 60:.1f} min"
    )
    shown = {"done": report.rechecked, "total": total, "pace": report.recheck_pace}
    load = "under a read every 50 ms and a chat turn a second" if probe is not None else "idle"
    say(
        f"recheck sweep ({load}): {how}; {report.get_calls:,} GETs, {report.list_calls} list "
        f"calls, {rate:,.0f} sessions/min; {recheck_text(shown, running=False)}"
        f"; paused {report.recheck_pace.get('paused_s')} s; vanished {report.counts.vanished}, "
        f"changed {report.counts.changed}, transcripts read {report.content_reads}"
        + (f"; ended: {report.error_code}" if report.error_code else "")
    )
    return {
        "seconds": report.seconds,
        "gets": report.get_calls,
        "list_calls": report.list_calls,
        "rechecked": report.rechecked,
        "total": total,
        "projected": projected,
        "per_minute": rate,
        "pace": report.recheck_pace,
        "latency": latency,
    }


if __name__ == "__main__":
    _measure()
