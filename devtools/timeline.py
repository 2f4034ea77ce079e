"""Per-worker busy time, idle gaps and last tests from a ``HERMES_UI_TIMELINE`` file.

    HERMES_UI_TIMELINE=/tmp/timeline.txt make test
    python devtools/timeline.py /tmp/timeline.txt [--gap SECONDS]

Each line of the file is ``worker start end nodeid`` (tests/conftest.py writes it).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path


def read(path: Path) -> dict[str, list[tuple[float, float, str]]]:
    """The tests of each worker, in the order they started."""
    workers: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        worker, start, end, nodeid = line.split(" ", 3)
        workers[worker].append((float(start), float(end), nodeid))
    for tests in workers.values():
        tests.sort()
    return dict(workers)


def summary(workers: dict[str, list[tuple[float, float, str]]], gap: float = 5.0) -> str:
    """The report: the run's span, then per worker its busy time, gaps over ``gap``
    seconds (setup and teardown of fixtures fall between tests, so they show here),
    its idle time at the end and its last 10 tests."""
    first = min(tests[0][0] for tests in workers.values())
    last = max(max(end for _, end, _ in tests) for tests in workers.values())
    lines = [f"run: {last - first:.1f} s wall, {len(workers)} worker(s)"]
    for worker, tests in sorted(workers.items()):
        busy = sum(end - start for start, end, _ in tests)
        finished = max(end for _, end, _ in tests)
        lines.append(
            f"\n{worker}: {len(tests)} tests, busy {busy:.1f} s, "
            f"idle at the end {last - finished:.1f} s"
        )
        previous_end = first
        for start, _end, nodeid in tests:
            if start - previous_end > gap:
                lines.append(
                    f"  gap {start - previous_end:6.1f} s at +{previous_end - first:.1f} s "
                    f"before {nodeid}"
                )
            previous_end = max(previous_end, _end)
        lines.append("  last 10:")
        for start, end, nodeid in tests[-10:]:
            lines.append(f"  {start - first:8.1f} +{end - start:6.1f} s {nodeid}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--gap", type=float, default=5.0, help="report gaps over this (s)")
    args = parser.parse_args(argv)
    print(summary(read(args.path), args.gap))


if __name__ == "__main__":
    main()
