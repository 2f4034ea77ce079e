"""``serving.supervise``: the ``started`` hook (``make run`` waits with it before printing
its banner) and the restarts of children that exit."""

import sys
import time

import pytest

from hermes_ui.platform import serving


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_started_runs_while_the_children_do_and_ctrl_c_in_it_stops_cleanly():
    seen = []

    def started(running):
        seen.append(running())
        raise KeyboardInterrupt

    argvs = [python("import time; time.sleep(60)")]
    began = time.monotonic()
    code = serving.supervise(argvs, serving.child_env(), started)
    assert seen == [True] and code == 0 and time.monotonic() - began < 15


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch):
    """Restarts after 0.05 s, doubling, instead of 0.5 s: the same steps, a tenth the wait."""
    monkeypatch.setattr(serving, "FIRST_BACKOFF", 0.05)


def test_started_sees_a_child_exit_and_the_others_are_stopped():
    seen = []

    def started(running):
        give_up = time.monotonic() + 20
        while running() and time.monotonic() < give_up:
            time.sleep(0.05)
        seen.append(running())

    argvs = [python("import sys; sys.exit(3)"), python("import time; time.sleep(60)")]
    began = time.monotonic()
    assert serving.supervise(argvs, serving.child_env(), started) == 3
    assert seen == [False] and time.monotonic() - began < 15


def test_a_child_that_exits_is_restarted_and_the_others_run_on(tmp_path):
    starts, steady = tmp_path / "starts", tmp_path / "steady"
    crashing = python(
        f"import os, time; open({str(starts)!r}, 'a').write('x'); time.sleep(0.3); os._exit(1)"
    )
    staying = python(f"import time; open({str(steady)!r}, 'a').write('x'); time.sleep(60)")
    seen = []

    def started(running):
        give_up = time.monotonic() + 20
        while running() and time.monotonic() < give_up and len(_read(starts)) < 3:
            time.sleep(0.05)
        seen.append(running())
        raise KeyboardInterrupt  # Ctrl-C: the whole set stops, cleanly

    code = serving.supervise([crashing, staying], serving.child_env(), started)
    assert seen == [True] and len(_read(starts)) >= 3
    assert _read(steady) == "x"  # never restarted: another child's exits do not touch it
    assert code == 0


def test_a_child_failing_at_start_up_again_and_again_stops_the_set_with_its_code(caplog):
    argvs = [python("import sys; sys.exit(78)"), python("import time; time.sleep(60)")]
    began = time.monotonic()
    assert serving.supervise(argvs, serving.child_env()) == 78
    assert time.monotonic() - began < 20
    restarts = [r for r in caplog.records if "restarting it in" in r.getMessage()]
    assert len(restarts) == serving.QUICK_FAILURES - 1
    assert any("times in a row" in r.getMessage() for r in caplog.records)


def _read(path) -> str:
    return path.read_text() if path.exists() else ""
