"""An upgrade leaves older files readable (the umask protects new ones only): start-up
makes the whole data folder private, logs what it changed, and stops on a file it cannot fix."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START = "import django; django.setup(); from django.conf import settings; print(settings.DATA_DIR)"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def start(data_dir: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    env.update(DJANGO_SETTINGS_MODULE="hermes_ui.settings", HERMES_UI_DATA_DIR=str(data_dir))
    return subprocess.run(
        [sys.executable, "-c", START],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.umask(0o022),  # what the old release ran with
    )


def old_release_folder(data: Path) -> None:
    """The modes an earlier release left: files 0644, folders 0755."""
    for folder in (data, data / "lineage-svg" / "ab", data / "staticfiles" / "css"):
        folder.mkdir(parents=True, exist_ok=True)
    for name in (
        "hermes_ui.sqlite3",
        "hermes_ui.sqlite3-wal",
        "hermes_ui.sqlite3-shm",
        "secret_key",
        "lineage-svg/ab/graph.svg",
        "staticfiles/css/app.css",
    ):
        (data / name).write_text("x")
        (data / name).chmod(0o644)
    for folder in (data, data / "lineage-svg", data / "lineage-svg" / "ab"):
        folder.chmod(0o755)
    (data / "staticfiles").chmod(0o755)
    (data / "staticfiles" / "css").chmod(0o755)


def test_start_up_makes_an_upgraded_data_folder_private(tmp_path):
    data = tmp_path / "data"
    old_release_folder(data)
    tool = data / "hook.sh"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    (data / "link").symlink_to(tmp_path / "elsewhere")  # never followed
    done = start(data)
    assert done.returncode == 0, done.stderr[-2000:]
    for path in data.rglob("*"):
        if path.is_symlink() or "staticfiles" in path.relative_to(data).parts:
            continue
        if path.is_dir():
            assert mode(path) == 0o700, path
        elif path == tool:
            assert mode(path) == 0o700  # its owner may still run it; nobody else reads it
        else:
            assert mode(path) == 0o600, path
    assert mode(data) == 0o700
    # Collected static files are public by nature: left as they were.
    assert mode(data / "staticfiles") == 0o755
    assert mode(data / "staticfiles" / "css" / "app.css") == 0o644
    # One log line names what changed, relative to the data folder.
    lines = [line for line in done.stderr.splitlines() if "Made private" in line]
    assert len(lines) == 1, done.stderr[-2000:]
    assert "hermes_ui.sqlite3-wal 0644 -> 0600" in lines[0]
    assert "lineage-svg/ab/graph.svg 0644 -> 0600" in lines[0]
    assert "lineage-svg 0755 -> 0700" in lines[0]
    assert str(tmp_path) not in lines[0] and "staticfiles" not in lines[0]
    # The next start finds nothing to change and says nothing.
    again = start(data)
    assert again.returncode == 0 and "Made private" not in again.stderr


@pytest.fixture
def immutable(tmp_path):
    """A file nobody may change, root included (ext4's immutable flag)."""
    made = []

    def make(path: Path) -> Path:
        subprocess.run(["chattr", "+i", str(path)], check=True)
        made.append(path)
        return path

    yield make
    for path in made:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_file_that_cannot_be_made_private_stops_start_up_naming_it(tmp_path, immutable):
    data = tmp_path / "data"
    old_release_folder(data)
    stuck = immutable(data / "hermes_ui.sqlite3-wal")
    with pytest.raises(PermissionError):
        stuck.chmod(0o600)  # the setup is honest: even root cannot change it
    done = start(data)
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert f"{stuck} in the data folder cannot be made private" in done.stderr
    assert "mode 0644" in done.stderr
    assert mode(stuck) == 0o644
