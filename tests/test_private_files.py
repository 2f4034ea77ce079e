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
from hermes_ui.private_files import private_dir, read_or_create

ROOT = Path(__file__).resolve().parent.parent


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
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60, preexec_fn=lambda: os.umask(0),
    )  # fmt: skip


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
