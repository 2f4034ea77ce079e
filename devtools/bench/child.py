"""Running a benchmark's measurements in a child process against a scratch peer.

The child gets its own data folder and the peer as endpoint ``bench`` with
periodic syncs off, so only what the benchmark does touches the index.
"""

import contextlib
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def dashboard_env(data_dir: Path, peer, **settings: str) -> dict:
    """The environment of a dashboard process with its data in ``data_dir`` and ``peer``
    as endpoint ``bench``, plus ``settings``."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
        "HERMES_UI_DATA_DIR": str(data_dir),
        "HERMES_API_URL": peer.base_url,
        "HERMES_API_KEY": peer.key,
        "HERMES_ENDPOINT_ID": "bench",
        **settings,
    }


def measure_in_child(stdout, module: str, scratch: str, peer, extra_env=None) -> None:
    """Run ``python -m module`` against ``peer`` and relay what it prints."""
    env = dashboard_env(
        Path(scratch) / "ui",
        peer,
        HERMES_INDEX_REFRESH_SECONDS="0",
        HERMES_UI_LOG_LEVEL="WARNING",
        **(extra_env or {}),
    )
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

    from hermes_ui.platform.endpoints import get_endpoint

    call_command("migrate", verbosity=0)

    def say(text: str) -> None:
        print(text, flush=True)

    return get_endpoint("bench"), say


COUNT = 10_000  # sessions of the bench seed


@contextlib.contextmanager
def seeded_peer(stdout, name: str, *, profile: str = "bench", count: int = COUNT):
    """A scratch folder and a running peer seeded with ``profile``: yields (scratch, peer).

    Prints how long the seed took. ``peer.config.home`` is the peer's home.
    """
    from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, run_seed

    with tempfile.TemporaryDirectory(prefix=f"hermes-bench-{name}-") as scratch:
        home = Path(scratch) / "home"
        python = ensure_peer_venv()
        started = time.perf_counter()
        summary = run_seed(home, profile, count=count, peer_python=python)
        if profile == "bench":
            what = f"{summary['sessions']:,} sessions"
        elif profile == "paging":
            what = "transcripts of " + ", ".join(f"{n:,}" for n in summary["sessions"].values())
        else:
            what = "the demo peer"
        lineage = sum((summary.get("lineage") or {}).values())
        if lineage:
            what += f" + a {lineage}-node lineage"
        stdout.write(f"seeded {what} in {time.perf_counter() - started:.1f} s")
        with Peer(PeerConfig(home=home, peer_python=python)) as peer:
            yield scratch, peer


_DASHBOARD = (
    "import sys\n"
    "from hermes_cli.web_server import start_server\n"
    "start_server('127.0.0.1', int(sys.argv[1]), open_browser=False)\n"
)


@contextlib.contextmanager
def hermes_dashboard(peer, scratch: str):
    """Hermes' own dashboard (``hermes_cli.web_server``) over a copy of the peer's home.

    Yields the environment a measuring child needs to call it:
    ``BENCH_DASHBOARD_URL`` and ``BENCH_DASHBOARD_TOKEN``.
    """
    from devtools.peer.launcher import free_port

    copy = Path(scratch) / "dashboard-home"
    shutil.copytree(peer.config.home, copy, ignore=shutil.ignore_patterns("peer-logs", "logs"))
    token = secrets.token_urlsafe(24)
    port = free_port()
    dashboard = subprocess.Popen(
        [str(peer.config.peer_python), "-c", _DASHBOARD, str(port)],
        cwd=copy,
        env={
            **os.environ,
            "HERMES_HOME": str(copy),
            "HOME": str(copy / "home"),
            "HERMES_DASHBOARD_SESSION_TOKEN": token,
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_for_dashboard(url, token)
        yield {"BENCH_DASHBOARD_URL": url, "BENCH_DASHBOARD_TOKEN": token}
    finally:
        dashboard.terminate()
        dashboard.wait(10)


def _wait_for_dashboard(url: str, token: str, timeout: float = 120.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            answer = httpx.get(
                url + "/api/sessions/search",
                params={"q": "x"},
                timeout=5,
                headers={"X-Hermes-Session-Token": token},
            )
            if answer.status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit("Hermes' dashboard did not start")


def median_ms(action, times: int) -> float:
    """The median wall time of ``times`` calls of ``action``, in milliseconds."""
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)
