"""Browser-test plumbing: the dashboard under uvicorn, and Debian's Chromium via Playwright."""

import os
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.request
from functools import cache
from pathlib import Path

from devtools.peer.launcher import free_port
from tests.support.shared import made_once

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PASSWORD = "browser-pass-12345"
USERS = {"support": "support", "reviewer": "reviewer", "admin": "admin", "admin2": "admin"}


def manage_py(command: str, *args: str) -> list[str]:
    """The command line of ``manage.py command args``, with ``--skip-checks`` where the
    command runs Django's system checks.

    A test's servers, workers and arranging commands need no checks (``manage.py
    check`` is tested on its own, tests/test_security.py), and their URL check loads
    every view: most of such a command's start.
    """
    return [sys.executable, str(REPO / "manage.py"), command, *_skip_checks(command), *args]


@cache
def _skip_checks(command: str) -> tuple[str, ...]:
    from django.core.management import get_commands, load_command_class

    app = get_commands().get(command)
    if app is None:
        return ()
    # Django adds the option to exactly the commands that run the checks.
    checks = load_command_class(app, command).requires_system_checks
    return ("--skip-checks",) if checks else ()


def users_script(users: dict[str, str], password: str) -> str:
    """For ``manage.py shell -c``: each of ``users`` (name: role) with ``password``, as
    ``manage.py create_user`` would; one process, so Django starts once."""
    return f"""
from django.core.management import call_command
for name, role in {users!r}.items():
    call_command("create_user", name, role=role, password={password!r})
"""


def prepare_script(users: dict[str, str], password: str) -> str:
    """For ``manage.py shell -c``: ``migrate``, then ``users_script``."""
    return f"""
from django.core.management import call_command
call_command("migrate", verbosity=0)
{users_script(users, password)}"""


def migrated_database() -> Path:
    """A SQLite database file that ``manage.py migrate`` made, once per run.

    The pytest workers' test databases (``tests/support/database.py``), the servers'
    template and the tests that need a migrated data folder copy it: each migrate
    costs seconds of CPU.
    """

    def make(folder: Path) -> None:
        inherited = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
        subprocess.run(
            manage_py("migrate", "--verbosity", "0"),
            env={
                **inherited,
                "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
                "HERMES_UI_DATA_DIR": str(folder / "data"),
            },
            check=True,
            capture_output=True,
            cwd=REPO,
        )
        fold_wal(folder / "data" / "hermes_ui.sqlite3")

    return made_once("migrated-database", make) / "data" / "hermes_ui.sqlite3"


def fold_wal(database: Path) -> None:
    """Fold the WAL into the file, so a plain copy of the file is the whole database."""
    conn = sqlite3.connect(database)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def template_database(env: dict) -> Path:
    """A copy of ``migrated_database`` holding ``USERS``, made once per run (``env`` is
    the first server's, its data folder swapped for the template's own).

    Each SQLite server starts from a copy: running every migration again for each
    server was most of its start.
    """

    def make(folder: Path) -> None:
        data = folder / "data"
        data.mkdir(mode=0o700)
        shutil.copyfile(migrated_database(), data / "hermes_ui.sqlite3")
        subprocess.run(
            manage_py("shell", "-c", users_script(USERS, PASSWORD)),
            env={**env, "HERMES_UI_DATA_DIR": str(data)},
            check=True,
            capture_output=True,
            cwd=REPO,
        )
        fold_wal(data / "hermes_ui.sqlite3")

    return made_once("template-database", make) / "data" / "hermes_ui.sqlite3"


class DashboardServer:
    """The real ASGI app under uvicorn, on its own data folder and database."""

    def __init__(
        self,
        data_dir: Path,
        peer,
        extra_env: dict | None = None,
        refresher=False,
        workers=1,
        task_worker=True,
    ):
        self.port = free_port()
        # More than one: uvicorn's own supervisor and its worker processes, as ``manage.py serve``.
        self.workers = workers
        # The periodic worker (the schedule's rounds) is its own process, as under
        # ``make run`` and ``make serve``.
        self.refresher = refresher
        self.refresher_process = None
        # The background jobs' task worker, as under ``make run``; a test of pages alone,
        # which queues no job, can do without its start and its polling.
        self.task_worker = task_worker
        self.task_worker_process = None
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        # Its own SQLite file unless the caller passes DATABASE_URL / REDIS_URL:
        # a suite run on PostgreSQL must not point every server at one database.
        inherited = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
        self.base_env = {
            **inherited,
            "HERMES_UI_DATA_DIR": str(data_dir),
            "HERMES_API_URL": peer.base_url,
            "HERMES_API_KEY": peer.key,
            "HERMES_ENDPOINT_ID": "local",
            "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
            # uvicorn's --timeout-graceful-shutdown: a page's live stream never finishes
            # by itself, so each stop waited out the whole default grace (20 s; the
            # harness kills after 10).
            "HERMES_UI_SHUTDOWN_GRACE_SECONDS": "1",
        }
        self.env = {**self.base_env, **(extra_env or {})}
        self.log_path = data_dir / "uvicorn.log"
        self.process = None

    def manage(self, *args: str) -> None:
        subprocess.run(
            manage_py(*args),
            env=self.env,
            check=True,
            capture_output=True,
            cwd=REPO,
        )

    def prepare(self) -> None:
        """Migrate and create ``USERS``: a copy of the template database for a SQLite
        server, ``manage.py`` on PostgreSQL (``DATABASE_URL``) or a ``HERMES_UI_DB``."""
        if "DATABASE_URL" in self.env or "HERMES_UI_DB" in self.env:
            self.manage("shell", "-c", prepare_script(USERS, PASSWORD))
            return
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        shutil.copyfile(template_database(self.base_env), self.data_dir / "hermes_ui.sqlite3")

    def start(self, *, prepare: bool = True) -> "DashboardServer":
        """Migrate and create the users (``prepare``: not needed again on a shared database),
        then serve."""
        from hermes_ui.platform.serving import uvicorn_argv

        assert self.process is None, "started twice: stop() first, or its workers outlive it"
        if prepare:
            self.prepare()
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            uvicorn_argv(
                "127.0.0.1",
                self.port,
                self.workers,
                grace=int(self.env["HERMES_UI_SHUTDOWN_GRACE_SECONDS"]),
            ),
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )

        # The background jobs' task worker (hermes_ui/background/workers), polling an
        # empty queue as often as under ``make run``: each poll takes SQLite's write lock.
        def worker(queue: str) -> subprocess.Popen:
            command = manage_py("task_worker", "--interval", "0.5", "--queue", queue)
            return subprocess.Popen(
                command, env=self.env, stdout=log, stderr=subprocess.STDOUT, cwd=REPO
            )

        if self.task_worker:
            self.task_worker_process = worker("default")
        if self.refresher:
            self.refresher_process = worker("periodic")
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
        """SIGTERM every process at once, then wait for each (SIGKILL after 10 s)."""
        processes = [self.process, self.refresher_process, self.task_worker_process]
        processes = [process for process in processes if process is not None]
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self.process = self.refresher_process = self.task_worker_process = None


# Every page reports its Content-Security-Policy violations to the test, by
# the DOM event and by Chromium's console line ("Refused to ..."), so a test
# fails on any violation even when the page looks right.
_CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  window.__hermesCspViolation(`${e.violatedDirective} blocked ${e.blockedURI || "inline"}`
    + ` at ${e.sourceFile}:${e.lineNumber}`);
});
"""


def watched_context(chromium, **options):
    """A browser context whose CSP violations are collected in ``context.csp_violations``."""
    context = chromium.new_context(**options)
    violations: list[str] = []
    context.expose_binding("__hermesCspViolation", lambda _source, text: violations.append(text))
    context.add_init_script(_CSP_LISTENER)

    def on_console(message):
        if "Content Security Policy" in message.text:
            violations.append(f"console: {message.text}")

    context.on("console", on_console)
    context.csp_violations = violations
    return context


def assert_no_csp_violations(context) -> None:
    assert context.csp_violations == [], context.csp_violations


def wait_for_js(page, expression: str, timeout: float = 30.0) -> None:
    """Poll a JavaScript expression until it is truthy.

    Playwright's ``wait_for_function`` compiles its predicate with ``new Function``
    inside the page, which the Content-Security-Policy forbids; ``evaluate``
    runs through the DevTools protocol, which the policy does not govern.
    """
    from playwright.sync_api import Error

    deadline = time.monotonic() + timeout
    while True:
        try:
            if page.evaluate(expression):
                return
        except Error:
            pass  # a navigation replaced the document; ask the new one
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {expression}")
        time.sleep(0.1)  # each look is a round trip through Playwright's driver and the page


def log_in(page, base_url: str, username: str) -> None:
    page.goto(base_url + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


class Logins:
    """One form login per person on the server at ``base_url``; later contexts start
    from its cookies (Playwright's storage state).

    For tests that need someone signed in, not a sign-in: a reused session keeps its
    first sign-in time (API tokens ask for a recent one). A page whose cookies were
    refused lands on the login page, so a test that looks for its own page fails.
    """

    def __init__(self, chromium, base_url: str):
        self.chromium, self.base_url = chromium, base_url
        self._states: dict[str, dict] = {}

    def state(self, username: str) -> dict:
        if username not in self._states:
            context = self.chromium.new_context()
            try:
                log_in(context.new_page(), self.base_url, username)
                self._states[username] = context.storage_state()
            finally:
                context.close()
        return self._states[username]

    def sign_in(self, page, username: str) -> None:
        """``page``'s context gets ``username``'s cookies; the test opens its page next."""
        page.context.add_cookies(self.state(username)["cookies"])


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
