"""Throwaway PostgreSQL and Redis servers on free loopback ports, for tests and benchmarks.

Each server lives in a fresh temporary folder, listens on 127.0.0.1 only,
keeps nothing on disk it does not need, and is removed by ``stop()``. No
system service is used or needed: the binaries come from Debian's
``postgresql`` and ``redis-server`` packages (``make test`` installs them).

PostgreSQL refuses to run as root, so under root the cluster belongs to the
``postgres`` user the Debian package creates.
"""

from __future__ import annotations

import atexit
import contextlib
import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from devtools.peer.launcher import free_port


class ServiceError(RuntimeError):
    """A server binary is missing or the server did not come up."""


def postgres_bindir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    if not found:
        raise ServiceError("PostgreSQL is not installed (apt-get install postgresql)")
    return Path(found[-1]).parent


def _version(path: str) -> int:
    part = Path(path).parts[-3]
    return int(part) if part.isdigit() else 0


def _wait_port(port: int, proc: subprocess.Popen, timeout: float, name: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServiceError(f"{name} exited with status {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise ServiceError(f"{name} did not listen on port {port} within {timeout:.0f} s")


def _wait_ready(port: int, timeout: float) -> None:
    """Wait until PostgreSQL on ``port`` accepts a session ("starting up" refuses them)."""
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(f"postgresql://{Postgres.USER}@127.0.0.1:{port}/postgres"):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _stop(proc: subprocess.Popen | None, sig: int = signal.SIGTERM) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


_initdb: Path | None = None


def _initdb_once(run_as: dict) -> Path:
    """A fresh cluster's data folder, made by ``initdb`` once per process: each server
    starts from a copy (``initdb`` was most of a server's start)."""
    global _initdb
    if _initdb is None:
        folder = Path(tempfile.mkdtemp(prefix="hermes-ui-initdb-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        if run_as:
            os.chown(folder, run_as["user"], run_as["group"])
        subprocess.run(
            [
                str(postgres_bindir() / "initdb"),
                "-D",
                str(folder / "data"),
                "-U",
                Postgres.USER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            cwd=folder,
            **run_as,
        )
        _initdb = folder / "data"
    return _initdb


class Postgres:
    """``with Postgres() as pg: pg.url`` -> ``postgres://hermes@127.0.0.1:PORT/hermes_ui``."""

    USER = "hermes"
    DATABASE = "hermes_ui"

    def __init__(self) -> None:
        self.port = 0
        self.folder: Path | None = None
        self.proc: subprocess.Popen | None = None
        self._run_as: dict = {}

    @property
    def url(self) -> str:
        return f"postgres://{self.USER}@127.0.0.1:{self.port}/{self.DATABASE}"

    def start(self, timeout: float = 60.0) -> Postgres:
        self.folder = Path(tempfile.mkdtemp(prefix="hermes-ui-pg-"))
        run_as = {}
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            run_as = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
        # cp -a keeps the owner and the 0700 mode PostgreSQL insists on.
        template = _initdb_once(run_as)
        subprocess.run(["cp", "-a", str(template), str(self.folder / "data")], check=True)
        self.port = free_port()
        self._run_as = run_as
        self._launch(timeout)
        self._create_database(timeout)
        return self

    def _launch(self, timeout: float) -> None:
        # Durability is pointless for a throwaway cluster; speed is not.
        self.proc = subprocess.Popen(
            [
                str(postgres_bindir() / "postgres"),
                "-D",
                str(self.folder / "data"),
                "-p",
                str(self.port),
                "-h",
                "127.0.0.1",
                "-k",
                "",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=200",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.folder,
            start_new_session=True,
            **self._run_as,
        )
        _wait_port(self.port, self.proc, timeout, "PostgreSQL")

    def halt(self) -> None:
        """Stop the server ("fast" shutdown), keeping its data and port for ``restart()``."""
        _stop(self.proc, signal.SIGINT)

    def restart(self, timeout: float = 60.0) -> None:
        """Start the halted server again, with its data, on the same port."""
        self._launch(timeout)
        _wait_ready(self.port, timeout)

    def _create_database(self, timeout: float) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(
                    f"postgresql://{self.USER}@127.0.0.1:{self.port}/postgres", autocommit=True
                ) as conn:
                    conn.execute(f'CREATE DATABASE "{self.DATABASE}"')
                return
            except psycopg.OperationalError:
                # "the database system is starting up"
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def stop(self) -> None:
        _stop(self.proc, signal.SIGINT)  # "fast" shutdown
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Postgres:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class Redis:
    """``with Redis() as r: r.url`` -> ``redis://127.0.0.1:PORT/0``; nothing persisted."""

    def __init__(self) -> None:
        self.port = 0
        self.folder: Path | None = None
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20.0) -> Redis:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not os.access(binary, os.X_OK):
            raise ServiceError("redis-server is not installed (apt-get install redis-server)")
        self.folder = Path(tempfile.mkdtemp(prefix="hermes-ui-redis-"))
        self.port = free_port()
        self._launch(timeout)
        return self

    def _launch(self, timeout: float) -> None:
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
                "--daemonize",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        _wait_port(self.port, self.proc, timeout, "Redis")

    def halt(self) -> None:
        """Stop the server, keeping its port for ``restart()`` (it persists nothing)."""
        _stop(self.proc)

    def restart(self, timeout: float = 20.0) -> None:
        """Start the halted server again, empty, on the same port."""
        self._launch(timeout)

    def stop(self) -> None:
        _stop(self.proc)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Redis:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class Prometheus:
    """``with Prometheus(target, token, rules) as p: p.query("up")``: Debian's ``prometheus``
    scraping one target every second, with its own configuration and data in a temporary
    folder; ``rules`` is a rules file it loads."""

    BINARY = "/usr/bin/prometheus"

    def __init__(self, target: str, token: str, rules: Path | None = None) -> None:
        self.target, self.token, self.rules = target, token, rules
        self.port = 0
        self.folder: Path | None = None
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> Prometheus:
        if not os.access(self.BINARY, os.X_OK):
            raise ServiceError("Prometheus is not installed (apt-get install prometheus)")
        self.folder = Path(tempfile.mkdtemp(prefix="hermes-ui-prometheus-"))
        (self.folder / "token").write_text(self.token)
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [
                {
                    "job_name": "hermes-ui",
                    "authorization": {"credentials_file": str(self.folder / "token")},
                    "static_configs": [{"targets": [self.target]}],
                }
            ],
        }
        if self.rules is not None:
            shutil.copy(self.rules, self.folder / "rules.yml")
            config["rule_files"] = [str(self.folder / "rules.yml")]
        # YAML reads JSON.
        (self.folder / "prometheus.yml").write_text(json.dumps(config))
        self.port = free_port()
        self.proc = subprocess.Popen(
            [
                self.BINARY,
                f"--config.file={self.folder / 'prometheus.yml'}",
                f"--storage.tsdb.path={self.folder / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=(self.folder / "prometheus.log").open("wb"),
            start_new_session=True,
        )
        _wait_port(self.port, self.proc, timeout, "Prometheus")
        return self

    def api(self, path: str, **params) -> dict:
        """GET ``/api/v1/<path>``; its ``data`` (raises unless the status is success)."""
        import httpx

        answer = httpx.get(f"{self.url}/api/v1/{path}", params=params, timeout=10).json()
        if answer.get("status") != "success":
            raise ServiceError(f"Prometheus {path}: {answer}")
        return answer["data"]

    def query(self, expr: str) -> list[dict]:
        return self.api("query", query=expr)["result"]

    def stop(self) -> None:
        _stop(self.proc)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Prometheus:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
