"""Per-worker busy time, CPU, idle gaps and last tests from a ``HERMES_UI_TIMELINE`` file.

    HERMES_UI_TIMELINE=/tmp/timeline.txt make test
    python devtools/timeline.py /tmp/timeline.txt [--gap SECONDS]
    python devtools/timeline.py /tmp/timeline.txt --durations tests/durations.txt

Each line of the file is ``worker start end cpu nodeid`` (tests/conftest.py writes
it; ``cpu`` is ``-`` where cgroups could not be used). ``--durations`` writes each
test file's seconds, which ``tests/support/ordering.py`` schedules by.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple


class Test(NamedTuple):
    start: float
    end: float
    cpu: float | None
    nodeid: str


def read(path: Path) -> dict[str, list[Test]]:
    """The tests of each worker, in the order they started."""
    workers: dict[str, list[Test]] = defaultdict(list)
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        worker, start, end, cpu, nodeid = line.split(" ", 4)
        workers[worker].append(
            Test(float(start), float(end), None if cpu == "-" else float(cpu), nodeid)
        )
    for tests in workers.values():
        tests.sort()
    return dict(workers)


def summary(workers: dict[str, list[Test]], gap: float = 5.0) -> str:
    """The report: the run's span, then per worker its busy time and CPU seconds, gaps
    over ``gap`` seconds (setup and teardown of fixtures fall between tests, so they
    show here), its idle time at the end and its last 10 tests."""
    first = min(tests[0].start for tests in workers.values())
    last = max(max(t.end for t in tests) for tests in workers.values())
    lines = [f"run: {last - first:.1f} s wall, {len(workers)} worker(s)"]
    for worker, tests in sorted(workers.items()):
        busy = sum(t.end - t.start for t in tests)
        finished = max(t.end for t in tests)
        cpu = [t.cpu for t in tests if t.cpu is not None]
        lines.append(
            f"\n{worker}: {len(tests)} tests, busy {busy:.1f} s"
            + (f", CPU {sum(cpu):.1f} s" if cpu else "")
            + f", idle at the end {last - finished:.1f} s"
        )
        previous_end = first
        for test in tests:
            if test.start - previous_end > gap:
                lines.append(
                    f"  gap {test.start - previous_end:6.1f} s at +{previous_end - first:.1f} s "
                    f"before {test.nodeid}"
                )
            previous_end = max(previous_end, test.end)
        lines.append("  last 10:")
        for test in tests[-10:]:
            took = test.end - test.start
            lines.append(f"  {test.start - first:8.1f} +{took:6.1f} s {test.nodeid}")
    return "\n".join(lines)


def durations(workers: dict[str, list[Test]]) -> dict[str, float]:
    """Each test file's seconds, summed over its tests."""
    files: dict[str, float] = defaultdict(float)
    for tests in workers.values():
        for test in tests:
            files[test.nodeid.split("::")[0]] += test.end - test.start
    return dict(files)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--gap", type=float, default=5.0, help="report gaps over this (s)")
    parser.add_argument("--durations", type=Path, help="write each test file's seconds here")
    args = parser.parse_args(argv)
    workers = read(args.path)
    if args.durations:
        rows = sorted(durations(workers).items(), key=lambda row: (-row[1], row[0]))
        args.durations.write_text("".join(f"{seconds:.1f} {name}\n" for name, seconds in rows))
        return
    print(summary(workers, args.gap))


if __name__ == "__main__":
    main()
