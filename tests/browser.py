"""Browser-test plumbing: the dashboard under uvicorn, and Debian's Chromium via Playwright."""

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from devtools.peer.launcher import free_port

REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PASSWORD = "browser-pass-12345"
USERS = {"support": "support", "reviewer": "reviewer", "admin": "admin", "admin2": "admin"}


class DashboardServer:
    """The real ASGI app under uvicorn, on its own data folder and database."""

    def __init__(self, data_dir: Path, peer, extra_env: dict | None = None):
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        self.env = {
            **os.environ,
            "HERMES_UI_DATA_DIR": str(data_dir),
            "HERMES_API_URL": peer.base_url,
            "HERMES_API_KEY": peer.key,
            "HERMES_ENDPOINT_ID": "local",
            "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
            **(extra_env or {}),
        }
        self.log_path = data_dir / "uvicorn.log"
        self.process = None

    def manage(self, *args: str) -> None:
        subprocess.run([sys.executable, str(REPO / "manage.py"), *args], env=self.env,
                       check=True, capture_output=True, cwd=REPO)  # fmt: skip

    def start(self) -> "DashboardServer":
        self.manage("migrate", "--verbosity", "0")
        for name, role in USERS.items():
            self.manage("create_user", name, "--role", role, "--password", PASSWORD)
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "hermes_ui.asgi:application", "--host",
             "127.0.0.1", "--port", str(self.port), "--no-access-log"],
            env=self.env, stdout=log, stderr=subprocess.STDOUT, cwd=REPO,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.base_url + "/healthz", timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"uvicorn did not start: {self.log_path.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
            self.process = None


def log_in(page, base_url: str, username: str) -> None:
    page.goto(base_url + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
