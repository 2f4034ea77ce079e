"""The live settings are parsed strictly: a bad value stops start-up, naming the variable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HERMES_UI_LIVE_SECONDS", "fast"),
        ("HERMES_UI_LIVE_SECONDS", "0"),
        ("HERMES_UI_LIVE_SECONDS", "nan"),
        ("HERMES_UI_LIVE_SECONDS", "inf"),
        ("HERMES_UI_LIVE_MAX_STREAMS", "many"),
        ("HERMES_UI_LIVE_MAX_STREAMS", "-1"),
        ("HERMES_UI_LIVE_RECHECK_SECONDS", "31"),
        ("HERMES_UI_LIVE_RECHECK_SECONDS", "nan"),
        ("HERMES_UI_LIVE_STREAMS_PER_PERSON", "0"),
    ],
)
def test_a_bad_live_setting_stops_start_up_naming_the_variable(name, value, tmp_path):
    env = {**os.environ, name: value, "HERMES_UI_DATA_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", "import hermes_ui.settings"],
        env=env,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=60,
    )
    assert done.returncode != 0 and f"ImproperlyConfigured: {name} must be" in done.stderr
