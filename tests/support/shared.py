"""What the pytest processes of one run make once and share: folders made under a lock.

The run's first process (the xdist controller, or the only one) names a folder in
``HERMES_UI_SUITE_SHARED``; its workers inherit it. Outside a test run each process
gets a folder of its own.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

ENV = "HERMES_UI_SUITE_SHARED"


_owned: list[str] = []  # the folder this process named, and so removes


def start_run() -> None:
    """Name the run's shared folder (``pytest_configure`` of the first process)."""
    if ENV not in os.environ:
        os.environ[ENV] = tempfile.mkdtemp(prefix="hermes-ui-suite-")
        _owned.append(os.environ[ENV])


def end_run() -> None:
    """Remove it, if this process named it (a pytest run inside a test inherits it)."""
    while _owned:
        shutil.rmtree(_owned.pop(), ignore_errors=True)
        os.environ.pop(ENV, None)


def made_once(name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name``, filled by ``make(folder)`` in the first process to ask."""
    if ENV not in os.environ:
        start_run()
        atexit.register(end_run)
    root = Path(os.environ[ENV])
    root.mkdir(exist_ok=True)  # removed meanwhile (an outside clean-up of /tmp)
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / f"{name}.done").exists():
            shutil.rmtree(folder, ignore_errors=True)  # a failed attempt's leftovers
            folder.mkdir()
            make(folder)
            (root / f"{name}.done").touch()
    return folder


def write_groups(worker: str, nodeids: list[str], groups: list[str]) -> None:
    """Each test's xdist group, as a worker collected it, for the run's scheduler."""
    path = Path(os.environ[ENV]) / f"groups-{worker}.json"
    path.with_suffix(".tmp").write_text(json.dumps(dict(zip(nodeids, groups, strict=True))))
    path.with_suffix(".tmp").replace(path)


@cache
def read_groups() -> dict[str, str]:
    """The groups a worker wrote (every worker collects the same tests)."""
    return json.loads(next(Path(os.environ[ENV]).glob("groups-*.json")).read_text())
