"""The data folder and the secrets kept in it: private from the first byte.

Every file the dashboard's processes create is their user's only: the
settings module sets the umask to mask group and other bits
(``restrict_umask``) before anything is created, because SQLite creates its
database (and its ``-wal`` and ``-shm`` files) 0644, and caches, static files
and drawings are written with default modes too. The data folder is made
0700, and start-up stops, naming the folder, when it cannot be.

The umask protects new files only: an upgrade from a release that did not
set it leaves the database (and its ``-wal`` and ``-shm``) 0644 and folders
0755. So start-up also walks the whole data folder (``make_tree_private``):
every file loses its group and other bits (0600, or 0700 for a file its
owner may execute), every folder becomes 0700, except the collected static
files (public by nature: the server hands them to anyone). What it changed
is logged once, by path relative to the data folder; a file it cannot
change stops start-up, naming it.

A secret file is created with ``O_CREAT | O_EXCL`` and mode 0600 in one
call, so it is never readable by others, not even between "write" and
"chmod", and an existing file or symbolic link planted at its path is
never written through. Reads do not follow a symbolic link either.
"""

from __future__ import annotations

import logging
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

PRIVATE_UMASK = 0o077
_LOOSE = stat.S_IRWXG | stat.S_IRWXO

logger = logging.getLogger(__name__)
# What start-up changed in the data folder, kept until logging is configured.
_made_private: list[str] = []


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


def make_tree_private(root: Path, *, readable: tuple[str, ...] = ()) -> list[str]:
    """Bring every file under ``root`` to 0600 and every folder to 0700; stop if one cannot be.

    ``readable`` names top-level entries left as they are (collected static
    files). Symbolic links are neither followed nor changed (Linux has no
    mode of its own for a link). Returns the changes, ``"db.sqlite3 0644 -> 0600"``,
    and keeps them for ``log_made_private``.
    """
    changes = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if here == root:
            dirs[:] = [d for d in dirs if d not in readable]
            files = [f for f in files if f not in readable]
        for name in [*dirs, *files]:
            change = _tighten(here / name, root)
            if change:
                changes.append(change)
    _made_private.extend(changes)
    return changes


def _tighten(path: Path, root: Path) -> str:
    try:
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode):
            return ""
        old = stat.S_IMODE(st.st_mode)
        # A folder 0700; a file 0600, or 0700 when its owner may run it.
        new = 0o700 if stat.S_ISDIR(st.st_mode) else 0o600 | (old & stat.S_IXUSR)
        if old == new:
            return ""
        os.chmod(path, new, follow_symlinks=False)
    except FileNotFoundError:
        return ""  # removed meanwhile (another process's temporary file)
    except OSError as exc:
        raise ImproperlyConfigured(
            f"{path} in the data folder cannot be made private (mode "
            f"{'0700' if path.is_dir() else '0600'}) by this user ({exc.strerror or exc}); it "
            f"is mode {stat.S_IMODE(path.lstat().st_mode):04o}, owned by uid "
            f"{path.lstat().st_uid}. Make it owned by the user that runs Hermes UI (chown) "
            "and writable (chattr -i if it is immutable), or remove it."
        ) from None
    return f"{path.relative_to(root)} {old:04o} -> {new:04o}"


def log_made_private() -> None:
    """Log, once per process, what start-up made private in the data folder."""
    if _made_private:
        logger.warning(
            "Made private in the data folder (group and other access removed): %s",
            ", ".join(_made_private),
        )
        _made_private.clear()
