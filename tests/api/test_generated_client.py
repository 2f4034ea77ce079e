"""A client generated from the live document (openapi-python-client) runs a script's whole
journey against the dashboard over the real peer: create, rename, fork, chat, ask to
delete; a second admin approves. The client is generated once per module."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.peer]

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def generated(api_dashboard, tmp_path_factory) -> Path:
    """The folder holding the generated ``hermes_ui_client`` package."""
    folder = tmp_path_factory.mktemp("generated-client")
    made = subprocess.run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            "--url",
            f"{api_dashboard.base_url}/api/v1/openapi.json",
            "--meta",
            "none",
            "--output-path",
            str(folder / "hermes_ui_client"),
            "--fail-on-warning",
        ],
        # Its post-hooks run ruff: the venv's.
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    return folder


def test_a_script_with_the_generated_client_walks_the_whole_journey(api_dashboard, generated):
    tokens = [api_dashboard.token("admin"), api_dashboard.token("admin2")]
    run = subprocess.run(
        [sys.executable, str(HERE / "client_script.py"), api_dashboard.base_url, *tokens],
        env={**os.environ, "PYTHONPATH": str(generated)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert run.stdout.startswith("journey ok"), run.stdout
