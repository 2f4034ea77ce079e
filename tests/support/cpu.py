"""CPU seconds of this test process and every process it started, for the timeline.

Children that outlive a test (a package's peer, a dashboard server) and processes
they start themselves all count, which ``resource.getrusage`` cannot do: the
process moves itself into a cgroup of its own (v1 ``cpuacct``) and reads its
total. Where cgroups cannot be written (not root, cgroup v2 only) it reads nothing.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

CPUACCT = Path("/sys/fs/cgroup/cpuacct")


@cache
def _usage_file() -> Path | None:
    # One group per run and worker: two runs at once must not add to each other's total.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    run = os.getppid() if worker else os.getpid()
    group = CPUACCT / f"hermes-ui-tests-{run}-{worker or 'main'}"
    try:
        group.mkdir(exist_ok=True)
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        return None
    return group / "cpuacct.usage"


def cpu_seconds() -> float | None:
    """The group's CPU time so far (nanoseconds in the file), or None without cgroups."""
    usage = _usage_file()
    if usage is None:
        return None
    try:
        return int(usage.read_text()) / 1e9
    except (OSError, ValueError):
        return None
