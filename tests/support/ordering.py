"""The order the xdist workers take the groups in: the longest first, browser groups last.

A free worker takes the next group (``--dist loadgroup``), so the run ends when
its last group does. Handing out the longest groups first leaves the short ones
to even out the end. Each test file's seconds are in ``tests/durations.txt``
(``devtools/timeline.py --durations``); a file missing there counts
``SECONDS_PER_TEST`` for each of its tests.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

DURATIONS = Path(__file__).resolve().parents[1] / "durations.txt"
SECONDS_PER_TEST = 0.1


def read_durations(path: Path = DURATIONS) -> dict[str, float]:
    """``seconds file`` per line; a missing file makes every estimate a default."""
    if not path.exists():
        return {}
    seconds = {}
    for line in path.read_text().splitlines():
        if line.strip():
            value, name = line.split(" ", 1)
            seconds[name] = float(value)
    return seconds


def group_of(item) -> str:
    return item.get_closest_marker("xdist_group").args[0]


def estimates(items, seconds: dict[str, float]) -> dict[str, float]:
    """Each group's seconds: its files' recorded seconds, or a default per test."""
    files: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for item in items:
        files[group_of(item)][item.nodeid.split("::")[0]] += 1
    return {
        group: sum(seconds.get(name, SECONDS_PER_TEST * count) for name, count in counts.items())
        for group, counts in files.items()
    }


class Ordering:
    """The plugin ``tests/conftest.py`` registers."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items) -> None:
        """Runs after pytest-django, which sorts by database use and would scatter the
        groups; a stable sort keeps its order inside each group. Browser groups stay
        last: Playwright leaves an event loop behind that the ORM refuses to run beside.
        """
        if not items or items[0].get_closest_marker("xdist_group") is None:
            return
        estimate = estimates(items, read_durations())
        first = {}
        for index, item in enumerate(items):
            first.setdefault(group_of(item), index)

        def rank(group: str) -> tuple:
            return (group.endswith(" browser"), -estimate[group], first[group])

        items.sort(key=lambda item: rank(group_of(item)))
