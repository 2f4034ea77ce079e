"""SIGTERM to the server process (``make serve``'s ``manage.py serve``, ``make run``'s
``manage.py demo``) lets requests in flight finish, then exits 0, so ``make`` exits 0."""

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from devtools.peer.launcher import free_port
from tests.support.browser import migrated_database
from tests.support.waiting import until

ROOT = Path(__file__).resolve().parents[2]
GRACE = 10
BODY = 40  # bytes each slow request trickles, one every 50 ms: about 2 s in flight
CLIENTS = 4


def environment(data: Path, peer, port: int) -> dict:
    """The server's environment; its data folder holds a copy of the run's migrated
    database, as a dashboard's that is restarted (its migrate finds nothing to do)."""
    data.mkdir(mode=0o700, parents=True)
    shutil.copyfile(migrated_database(), data / "hermes_ui.sqlite3")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    env.update(
        HERMES_UI_DATA_DIR=str(data),
        HERMES_API_URL=peer.base_url,
        HERMES_API_KEY=peer.key,
        HERMES_UI_SHUTDOWN_GRACE_SECONDS=str(GRACE),
        WEB_CONCURRENCY="1",
        PORT=str(port),
    )
    return env


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except FileNotFoundError:
        return []
    return [int(p) for p in text.split()]


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return conn.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


class SlowClient(threading.Thread):
    """Sends request after request whose body trickles in; stops starting new ones on
    ``stop``. Records, for each request it began, whether a whole answer came back."""

    def __init__(self, port: int, stop: threading.Event):
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.in_flight = threading.Event()
        self.results: list[str] = []

    def run(self):
        while not self.stop.is_set():
            self.results.append(self.one())

    def one(self) -> str:
        head = (
            "GET /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            f"Content-Type: text/plain\r\nContent-Length: {BODY}\r\n\r\n"
        )
        try:
            conn = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        except OSError as exc:
            return f"not connected: {exc}"
        with conn:
            conn.sendall(head.encode())
            for n in range(BODY):
                conn.sendall(b"x")
                if n == 2:
                    self.in_flight.set()  # begun: headers and part of the body are sent
                time.sleep(0.05)
            self.in_flight.clear()
            answer = b""
            try:
                while chunk := conn.recv(65536):
                    answer += chunk
            except OSError as exc:
                return f"cut off: {exc} after {len(answer)} bytes"
        if answer.startswith(b"HTTP/1.1 200") and answer.rstrip().endswith(b"</html>"):
            return "whole"
        return f"cut off: {answer[:80]!r} ... {answer[-40:]!r}"


def serve_and_terminate(argv: list[str], env: dict, port: int, server_marker: str, ready: str = ""):
    """Start ``argv`` (make or manage.py), wait until it answers (and has printed
    ``ready``), put it under light load, SIGTERM the server process while every client
    has a request in flight; return the exit code, the clients' results and the output."""
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    printed: list[str] = []
    reader = threading.Thread(target=lambda: printed.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        until(
            lambda: (answers(port) and ready in "".join(printed)) or proc.poll() is not None,
            180,
            "the server never answered",
        )
        assert proc.poll() is None, "".join(printed)
        server = proc.pid
        if not cmdline(server).count(server_marker):  # make: the server is its child
            (server,) = [p for p in children(proc.pid) if server_marker in cmdline(p)]
        stop = threading.Event()
        clients = [SlowClient(port, stop) for _ in range(CLIENTS)]
        for client in clients:
            client.start()
        # A few rounds of load, then SIGTERM while all of them are mid-request.
        until(lambda: all(len(c.results) >= 2 for c in clients), 60, "no load went through")
        until(lambda: all(c.in_flight.is_set() for c in clients), 30, "clients not in flight")
        stop.set()
        signalled = time.monotonic()
        os.kill(server, signal.SIGTERM)
        code = proc.wait(GRACE + 30)
        took = time.monotonic() - signalled
        for client in clients:
            client.join(30)
        reader.join(30)
        return code, [r for c in clients for r in c.results], "".join(printed), took
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def assert_clean(code, results, output, took):
    assert code == 0, output[-3000:]
    assert "Error" not in output.split("Shutting down")[-1], output[-3000:]
    assert len(results) >= CLIENTS * 3
    assert [r for r in results if r != "whole"] == [], results  # none cut off
    assert took < GRACE  # they finished well inside the grace period, nothing was killed


def test_make_serve_exits_0_on_sigterm_after_requests_in_flight(tmp_path, hermes_peer):
    port = free_port()
    env = environment(tmp_path / "data", hermes_peer, port)
    result = serve_and_terminate(
        ["make", "--no-print-directory", "serve", f"PORT={port}"], env, port, "manage.py serve"
    )
    assert_clean(*result)


def test_make_run_exits_0_on_sigterm_after_requests_in_flight(tmp_path, hermes_peer):
    port = free_port()
    env = environment(tmp_path / "data", hermes_peer, port)
    result = serve_and_terminate(
        ["make", "--no-print-directory", "run", f"PORT={port}"],
        env,
        port,
        "manage.py demo",
        ready="Hermes UI:",
    )
    assert_clean(*result)
    assert "Hermes UI:" in result[2]  # the demo got as far as its banner


def test_a_child_that_will_not_stop_is_killed_after_the_grace_period(tmp_path):
    """Beyond the grace period, stopping kills, and the exit code says so."""
    script = (
        "import os, signal, sys, threading;"
        "from hermes_ui.platform import serving;"
        "stubborn = [sys.executable, '-c', 'import signal, time;"
        " signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'];"
        "threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGTERM)).start();"
        "sys.exit(serving.supervise([stubborn], serving.child_env(), grace=1))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    env.update(DJANGO_SETTINGS_MODULE="hermes_ui.settings", HERMES_UI_DATA_DIR=str(tmp_path))
    began = time.monotonic()
    done = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "-c", "import django; django.setup();" + script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert "1 process(es) did not stop within 1 s of SIGTERM and were killed" in done.stderr
    assert time.monotonic() - began < 30


def test_sigterm_to_the_whole_group_is_a_clean_stop_too(tmp_path):
    """systemd (KillMode=control-group) and Ctrl-C signal every process at once: children
    that stopped on that signal before the supervisor stopped them are no failure."""
    script = (
        "import os, signal, sys, threading;"
        "from hermes_ui.platform import serving;"
        "quick = [sys.executable, '-c', 'import time; time.sleep(60)'];"
        "threading.Timer(1.5, os.killpg, (os.getpgid(0), signal.SIGTERM)).start();"
        "sys.exit(serving.supervise([quick, quick], serving.child_env(), grace=5))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    env.update(DJANGO_SETTINGS_MODULE="hermes_ui.settings", HERMES_UI_DATA_DIR=str(tmp_path))
    done = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "-c", "import django; django.setup();" + script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,  # its own process group, so the signal reaches only it
    )
    assert done.returncode == 0, done.stderr
