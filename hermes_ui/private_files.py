"""The data folder and the secrets kept in it: private from the first byte.

Every file the dashboard's processes create is their user's only: the
settings module sets the umask to mask group and other bits
(``restrict_umask``) before anything is created, because SQLite creates its
database (and its ``-wal`` and ``-shm`` files) 0644, and caches, static files
and drawings are written with default modes too. The data folder is made
0700, and start-up stops, naming the folder, when it cannot be.

A secret file is created with ``O_CREAT | O_EXCL`` and mode 0600 in one
call, so it is never readable by others, not even between "write" and
"chmod", and an existing file or symbolic link planted at its path is
never written through. Reads do not follow a symbolic link either.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

PRIVATE_UMASK = 0o077


def restrict_umask() -> int:
    """Mask group and other permissions of every file and folder created from now on.

    Only adds to the umask the process started with (a stricter one stays);
    returns the umask now in force.
    """
    started_with = os.umask(PRIVATE_UMASK)
    os.umask(started_with | PRIVATE_UMASK)
    return started_with | PRIVATE_UMASK


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) and make it 0700, or stop: nobody else may read it."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        if stat.S_IMODE(path.stat().st_mode) != 0o700:
            path.chmod(0o700)
    except OSError as exc:
        raise ImproperlyConfigured(
            f"The data folder {path} cannot be made private (mode 0700) by this user "
            f"({exc.strerror or exc}). It holds the database and the secret key: make it "
            "owned by the user that runs Hermes UI (chown), or point HERMES_UI_DATA_DIR at a "
            "folder that user owns."
        ) from None
    return path


def read_or_create(path: Path, make: Callable[[], str]) -> str:
    """The secret kept in ``path``; on first use ``make()`` and store it 0600."""
    value = make()
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return _read(path)
    with os.fdopen(fd, "w") as out:
        out.write(value)
        out.flush()
        os.fsync(out.fileno())
    return value.strip()


def _read(path: Path, wait: float = 2.0) -> str:
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError as exc:
            raise ImproperlyConfigured(
                f"{path} exists but cannot be read as a plain file ({exc.strerror}); "
                "remove it to have a new one created"
            ) from None
        with os.fdopen(fd) as src:
            text = src.read().strip()
        # Another process may have created it a moment ago and not written yet.
        if text or time.monotonic() >= deadline:
            if not text:
                raise ImproperlyConfigured(f"{path} is empty; remove it to have it created")
            return text
        time.sleep(0.05)
