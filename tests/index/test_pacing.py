"""A sync paces its list calls by Hermes' latency: pauses grow when Hermes slows, shrink after."""

from pathlib import Path

import pytest

from hermes_ui.index import stopping, sync
from hermes_ui.index.freshness import Freshness
from hermes_ui.index.pacing import Pacer, pace_text
from tests.support.peers import endpoint_for
from tests.support.servers import SlowLists


def test_slow_calls_double_the_pause_and_fast_ones_shorten_it_to_none():
    pacer = Pacer(target=0.05, min_pause=0.1, max_stretch=1000)
    for _ in range(4):
        pacer.observe(0.06)  # just past the target: the doubling rules
    assert pacer.pauses == pytest.approx([0.1, 0.2, 0.4, 0.8])
    for _ in range(9):
        pacer.observe(0.01)
    assert pacer.pauses[4:] == pytest.approx([0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0, 0], abs=1e-9)


def test_a_call_k_times_the_target_pauses_k_minus_one_times_itself_at_once():
    """A big table's first list call does not wait for the doubling to catch up: the
    sweep's share of Hermes' time is at most target / call from the first pause on."""
    pacer = Pacer(target=0.05, min_pause=0.25, max_stretch=50)
    pacer.observe(0.45)  # nine times the target: 8 x 0.45 s
    assert pacer.pauses == pytest.approx([3.6])
    pacer.observe(0.45)  # then doubling, up to the stretch's cap (49 x 0.45 s)
    pacer.observe(0.45)
    pacer.observe(0.45)
    assert pacer.pauses[1:] == pytest.approx([7.2, 14.4, 22.05])


def test_a_pause_is_at_most_stretch_minus_one_times_the_call():
    pacer = Pacer(target=0.05, min_pause=0.5, max_stretch=3)
    for _ in range(6):
        pacer.observe(1.0)
    assert max(pacer.pauses) == pytest.approx(2.0)  # 1 s call, stretch 3: at most 2 s waited
    pacer.observe(0.01)  # Hermes is fast again: the cap follows the call at once
    assert pacer.pauses[-1] == pytest.approx(0.02)
    off = Pacer(target=0.05, min_pause=0.5, max_stretch=1)
    off.observe(5.0)
    assert off.pauses == [0.0]


def test_a_stop_ends_a_pause_at_once():
    pacer = Pacer(target=0.05, min_pause=60, max_stretch=1000)
    pacer.observe(1.0)
    stopping.request_stop()
    try:
        with pytest.raises(stopping.SyncStopped):
            pacer.wait()
    finally:
        stopping.STOP.clear()
    assert pacer.paused < 5


def test_the_pace_reads_as_calls_per_seconds_and_the_list_calls_p95():
    pace = {"pause_s": 2.3, "p95_ms": 4.2, "calls": 9, "last_ms": 700.0}
    assert (
        pace_text(pace, running=True) == "sweeping at 1 call per 3 s, Hermes p95 4.2 ms a list call"
    )
    fast = {"pause_s": 0, "p95_ms": 38.0, "calls": 3, "last_ms": 30.0}
    assert (
        pace_text(fast, running=False)
        == "last sync ran at full speed, Hermes p95 38 ms a list call"
    )
    running = Freshness("local", running=True, progress={"pace": pace}, last_pace=fast)
    assert running.pace_text.startswith("sweeping at 1 call per 3 s")
    assert Freshness("local", last_pace=fast).pace_text.startswith("last sync ran at full speed")


@pytest.mark.peer
@pytest.mark.django_db
def test_a_hermes_whose_list_calls_slow_down_makes_the_sweep_back_off_then_recover(
    settings, hermes_peer, monkeypatch, login
):
    settings.HERMES_INDEX_PACE_TARGET_MS = 150
    settings.HERMES_INDEX_PACE_MIN_PAUSE_MS = 200
    settings.HERMES_INDEX_PACE_MAX_STRETCH = 20
    settings.HERMES_INDEX_CONTENT = False
    monkeypatch.setattr(sync, "PAGE", 10)  # many list calls over the demo peer's ~200 rows
    # The first four list calls take 400 ms (past the 150 ms target), the rest are fast.
    with SlowLists(hermes_peer.base_url, list_delay=lambda n: 0.4 if n <= 4 else 0.0) as slow:
        endpoint = endpoint_for(settings, hermes_peer)
        endpoint = type(endpoint)(endpoint.id, slow.url, endpoint.api_key)
        settings.HERMES_ENDPOINTS = {"local": endpoint}
        report = sync.sync(endpoint, full=True)
    assert not report.error_code and report.list_calls >= 14
    gaps = slow.pauses()  # what Hermes saw between the end of one call and the next
    # Backing off: each slow call doubled the pause (from 0.4 x (0.4 / 0.15 - 1) = 0.67 s,
    # the share a call 2.7 times the target leaves Hermes, to 5.3 s) ...
    assert gaps[0] >= 0.6 and gaps[3] >= 5
    assert gaps[0] < gaps[1] < gaps[2] < gaps[3]
    # ... and recovering: fast calls shortened it, to full speed.
    assert gaps[4] < gaps[3]
    later = sorted(gaps[9:])
    assert later[len(later) // 2] < 0.15  # no pause left (only the index's own writes)
    assert report.pace["calls"] == report.list_calls
    assert report.pace["paused_s"] >= 0.6 + 1.3 + 2.6 + 5.2

    # The endpoints page shows the last sync's pace.
    html = login("admin").get("/endpoints/").content.decode()
    assert 'id="pace-local"' in html and "last sync ran at " in html and "Hermes p95" in html


@pytest.mark.parametrize(
    "name,value",
    [
        ("HERMES_INDEX_PACE_TARGET_MS", "fast"),
        ("HERMES_INDEX_PACE_MIN_PAUSE_MS", "0"),
        ("HERMES_INDEX_PACE_MAX_STRETCH", "0"),
        ("HERMES_INDEX_PACE_MAX_STRETCH", "2.5"),
    ],
)
def test_a_bad_pace_setting_stops_start_up_naming_it(tmp_path, name, value):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    env.update(HERMES_UI_DATA_DIR=str(tmp_path), **{name: value})
    done = subprocess.run(
        [sys.executable, "-c", "import hermes_ui.settings"],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and name in done.stderr
