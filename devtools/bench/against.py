"""``bench --against PATH --only SUITE``: this checkout's pages beside another checkout's.

One seeded peer serves two measuring processes (``against_child.py``), one per
checkout, each with its own scratch database. Rounds alternate which side goes
first; each figure is the median of the rounds, printed with the ratio new/old
and each side's spread (the machine's noise). Design notes: docs/development/benchmarks.md.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parents[2]
SUITES = ("session", "search")
# Sessions seeded: search builds both sides' content index first, which takes
# the better part of an hour at 10,000 sessions on a loaded 2-core machine.
SEEDED = {"session": 10_000, "search": 2_000}
WARM_UP = 3


def run(stdout, suite: str, against: Path, rounds: int = 15) -> None:
    from devtools.bench.child import dashboard_env, seeded_peer

    if suite not in SUITES:
        raise SystemExit(f"--against measures {', '.join(SUITES)}, not {suite!r}")
    stdout.write(f"load average at the start: {_load()}")
    with seeded_peer(stdout, f"against-{suite}", count=SEEDED[suite]) as (scratch, peer):
        sides = {}
        for name, root in (("new", REPO), ("old", against.resolve())):
            env = dashboard_env(
                Path(scratch) / f"ui-{name}",
                peer,
                HERMES_INDEX_REFRESH_SECONDS="0",
                HERMES_UI_LOG_LEVEL="WARNING",
            )
            sides[name] = subprocess.Popen(
                [_python(root), str(HERE.with_name("against_child.py")), suite],
                cwd=root,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        try:
            ready = [_answer(side)["ready"] for side in sides.values()]  # both set up
            names = ready[0]
            samples = {side: {n: [] for n in names} for side in sides}
            for n in range(WARM_UP + rounds):
                order = ("new", "old") if n % 2 == 0 else ("old", "new")
                for side in order:
                    sides[side].stdin.write(f"round {n}\n")
                    sides[side].stdin.flush()
                    figures = _answer(sides[side])
                    if n >= WARM_UP:
                        for name in names:
                            samples[side][name].append(figures[name])
        finally:
            for child in sides.values():
                child.stdin.close()
                child.wait(60)
    stdout.write(f"{rounds} rounds, alternating which side goes first; medians in ms")
    stdout.write(f"{'figure':<46} {'new':>8} {'old':>8} {'new/old':>8}   spread new / old")
    for name in names:
        new, old = (statistics.median(samples[s][name]) for s in ("new", "old"))
        stdout.write(
            f"{name:<46} {new:8.1f} {old:8.1f} {new / old:8.2f}   "
            f"{_spread(samples['new'][name])} / {_spread(samples['old'][name])}"
        )
    stdout.write(f"load average at the end: {_load()}")


def _python(root: Path) -> str:
    venv = root / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _answer(child: subprocess.Popen) -> dict:
    while line := child.stdout.readline():
        if line.startswith("{"):  # anything else is the code's own output
            return json.loads(line)
    raise SystemExit(f"a measuring process stopped (exit {child.wait()})")


def _spread(values: list[float]) -> str:
    """The interquartile range as a share of the median: how noisy the figure was."""
    q1, _, q3 = statistics.quantiles(values, n=4)
    return f"±{(q3 - q1) / 2 / statistics.median(values) * 100:.0f} %"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"
