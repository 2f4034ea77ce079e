"""``serving.supervise``'s ``started`` hook: called once the children run, and able to
tell when one of them exits (``make run`` waits with it before printing its banner)."""

import sys
import time

from hermes_ui.platform import serving


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_started_runs_while_the_children_do():
    seen = []
    argvs = [python("import time; time.sleep(1)")]
    code = serving.supervise(argvs, serving.child_env(), lambda running: seen.append(running()))
    assert seen == [True] and code == 0


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
