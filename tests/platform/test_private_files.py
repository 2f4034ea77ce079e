"""The data folder is 0700; the secret key and demo secrets are created 0600, never written
through a file or link someone planted at their path."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from devtools import demo
from hermes_ui.platform.private_files import private_dir, read_or_create

ROOT = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def open_umask():
    """Nothing masked: what the code asks for is what the file gets."""
    old = os.umask(0)
    yield
    os.umask(old)


def load_settings(data_dir: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    env.update(DJANGO_SETTINGS_MODULE="hermes_ui.settings", HERMES_UI_DATA_DIR=str(data_dir))
    code = "from django.conf import settings; print(len(settings.SECRET_KEY))"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.umask(0),
    )


def test_settings_make_a_private_data_folder_and_secret_key(tmp_path):
    data = tmp_path / "data"
    done = load_settings(data)
    assert done.returncode == 0, done.stderr[-2000:]
    assert mode(data) == 0o700  # even with nothing masked
    assert mode(data / "secret_key") == 0o600
    assert int(done.stdout.strip()) >= 50
    key = (data / "secret_key").read_text()
    assert load_settings(data).returncode == 0 and (data / "secret_key").read_text() == key


def test_an_existing_loose_data_folder_is_made_private(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o755)
    assert load_settings(data).returncode == 0
    assert mode(data) == 0o700


def test_the_secret_key_is_never_written_through_a_planted_link(tmp_path):
    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    data.mkdir(mode=0o700)
    (data / "secret_key").symlink_to(elsewhere)
    done = load_settings(data)
    assert done.returncode != 0 and "secret_key" in done.stderr
    assert not elsewhere.exists()


def test_demo_secrets_are_created_0600(settings, tmp_path, open_umask):
    settings.DATA_DIR = tmp_path / "data"
    passwords = demo.demo_passwords()
    path = settings.DATA_DIR / "demo-logins.json"
    assert mode(path) == 0o600 and mode(settings.DATA_DIR) == 0o700
    assert json.loads(path.read_text()) == passwords
    assert demo.demo_passwords() == passwords  # kept, not regenerated


def test_demo_logins_are_never_written_through_a_planted_link(settings, tmp_path):
    settings.DATA_DIR = tmp_path / "data"
    settings.DATA_DIR.mkdir()
    elsewhere = tmp_path / "elsewhere.json"
    (settings.DATA_DIR / "demo-logins.json").symlink_to(elsewhere)
    with pytest.raises(ImproperlyConfigured, match=r"demo-logins\.json"):
        demo.demo_passwords()
    assert not elsewhere.exists()


def test_read_or_create_keeps_the_first_value(tmp_path, open_umask):
    path = private_dir(tmp_path / "d") / "token"
    assert read_or_create(path, lambda: "first\n") == "first"
    assert read_or_create(path, lambda: "second") == "first"
    assert mode(path) == 0o600 and mode(path.parent) == 0o700


# -- the umask and a data folder that cannot be made private ------------------------------


def run_with_settings(data_dir: Path, code: str, umask: int = 0o022, **env_extra):
    """``code`` in a fresh process started with a usual, loose umask (group and others read)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    env.update(DJANGO_SETTINGS_MODULE="hermes_ui.settings", HERMES_UI_DATA_DIR=str(data_dir))
    env.update(env_extra)
    command = [sys.executable, "-c", code]
    return subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.umask(umask),
    )


CREATE_FILES = """
import os
import django
django.setup()
from django.conf import settings
from django.db import connection
with connection.cursor() as cursor:  # SQLite creates the database file here
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("CREATE TABLE t (x)")
    cursor.execute("INSERT INTO t VALUES (1)")
with open(settings.DATA_DIR / "new-file.txt", "w") as out:
    out.write("x")
os.mkdir(settings.DATA_DIR / "new-folder")
# SQLite removes its -wal and -shm files when the last connection closes: look now.
db = str(settings.DATABASES["default"]["NAME"])
for path in (db, db + "-wal", db + "-shm"):
    print(path, oct(os.stat(path).st_mode & 0o777))
print("umask", oct(os.umask(0)))
"""


def test_the_database_and_every_new_file_are_created_private(tmp_path):
    data = tmp_path / "data"
    done = run_with_settings(data, CREATE_FILES)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    db = str(data / "hermes_ui.sqlite3")
    assert seen == {db: "0o600", db + "-wal": "0o600", db + "-shm": "0o600", "umask": "0o77"}
    assert mode(data / "hermes_ui.sqlite3") == 0o600
    assert mode(data / "new-file.txt") == 0o600
    assert mode(data / "new-folder") == 0o700


def test_a_database_outside_the_data_folder_is_created_private_too(tmp_path):
    elsewhere = tmp_path / "db"
    elsewhere.mkdir(mode=0o755)
    db = elsewhere / "ui.sqlite3"
    done = run_with_settings(tmp_path / "data", CREATE_FILES, HERMES_UI_DB=str(db))
    assert done.returncode == 0, done.stderr[-2000:]
    assert mode(db) == 0o600


def test_a_stricter_umask_is_kept(tmp_path):
    code = "import os, django; django.setup(); print(oct(os.umask(0)))"
    done = run_with_settings(tmp_path / "data", code, umask=0o227)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "0o277"  # 0o227 plus group and other read


def test_a_data_folder_that_cannot_be_made_private_stops_with_its_name(tmp_path, monkeypatch):
    data = tmp_path / "shared"
    data.mkdir(mode=0o755)
    data.chmod(0o755)

    def refused(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "chmod", refused)
    with pytest.raises(ImproperlyConfigured, match="cannot be made private") as stopped:
        private_dir(data)
    assert str(data) in str(stopped.value)
    assert "Operation not permitted" in str(stopped.value)


def test_start_up_stops_when_the_data_folder_cannot_be_made_private(tmp_path):
    data = tmp_path / "shared"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    # As for a folder owned by another user: chmod is refused.
    code = (
        "import os\n"
        "def refused(*args, **kwargs):\n"
        "    raise PermissionError(1, 'Operation not permitted')\n"
        "os.chmod = refused\n"
        "from django.conf import settings\n"
        "settings.SECRET_KEY\n"
    )
    done = run_with_settings(data, code)
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert f"The data folder {data} cannot be made private" in done.stderr
    assert not (data / "secret_key").exists()  # stopped before the secret was written
