"""Running a benchmark's measurements in a child process against a scratch peer.

The child gets its own data folder and the peer as endpoint ``bench`` with
the refresher off, so only what the benchmark does touches the index.
"""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def measure_in_child(stdout, module: str, scratch: str, peer, extra_env=None) -> None:
    """Run ``python -m module`` against ``peer`` and relay what it prints."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
        "HERMES_UI_DATA_DIR": str(Path(scratch) / "ui"),
        "HERMES_API_URL": peer.base_url,
        "HERMES_API_KEY": peer.key,
        "HERMES_ENDPOINT_ID": "bench",
        "HERMES_INDEX_REFRESH_SECONDS": "0",
        "HERMES_UI_LOG_LEVEL": "WARNING",
        **(extra_env or {}),
    }
    child = subprocess.Popen(
        [sys.executable, "-m", module], env=env, cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    for line in child.stdout:
        stdout.write(line.rstrip("\n"))
    if child.wait() != 0:
        stdout.write(f"measurement process failed (exit {child.returncode})")


def child_setup():
    """In the child: Django ready, the database migrated; (the ``bench`` endpoint, say)."""
    import django

    django.setup()
    from django.core.management import call_command

    from hermes_ui.endpoints import get_endpoint

    call_command("migrate", verbosity=0)

    def say(text: str) -> None:
        print(text, flush=True)

    return get_endpoint("bench"), say
