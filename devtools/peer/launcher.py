"""Run the real Hermes API server (hermes-agent 0.19.0) on loopback, offline.

The dashboard's tests and demo use this to get a genuine peer: the stub model
(``model_server.py``) plus ``hermes gateway run`` from a separate virtualenv,
each in its own process group so ``stop()`` leaves nothing behind.

    with Peer(PeerConfig(home=tmp)) as peer:      # starts, waits for /health
        httpx.get(peer.base_url + "/api/sessions", headers=peer.auth_headers)

Stdlib only (the dashboard venv need not have anything installed).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PEER_VENV = REPO_ROOT / ".peer-venv"
# The dashboard venv's uv (Makefile), when present: installs the peer venvs.
UV = REPO_ROOT / ".venv" / "bin" / "uv"
PEER_VERSION = "0.19.0"  # the release the full suite and the demo run on
AIOHTTP_REQUIREMENT = "aiohttp==3.14.1"  # the API server adapter needs it; not a hermes dependency
PEER_REQUIREMENTS = (f"hermes-agent=={PEER_VERSION}", AIOHTTP_REQUIREMENT)
# The release matrix (docs/hermes-releases.md): the oldest and a middle release with
# the session API, and the last one without it (the "too old" pages).
MATRIX_VERSIONS = ("0.15.2", "0.17.0", "0.13.0")
MODEL_SERVER = Path(__file__).resolve().with_name("model_server.py")
MIN_CONTEXT_LENGTH = 64_000  # Hermes refuses to build an agent below this
# Mirrors hermes_cli.auth._PLACEHOLDER_SECRET_VALUES (exact, case-insensitive).
_PLACEHOLDER_KEYS = {
    "*",
    "**",
    "***",
    "changeme",
    "your_api_key",
    "your_api_key_here",
    "your-api-key",
    "placeholder",
    "example",
    "dummy",
    "null",
    "none",
}
_REFUSAL = "Refusing to start"


class PeerError(RuntimeError):
    """The peer could not be configured, started or reached."""


def generate_key() -> str:
    return secrets.token_hex(24)


def validate_key(key: str) -> None:
    """Raise PeerError for a key the Hermes API server would refuse.

    Hermes would otherwise keep the gateway running without the API server,
    so /health just never answers; failing here gives the reason up front.
    """
    if not isinstance(key, str) or not key:
        raise PeerError("API_SERVER_KEY is required (even on loopback)")
    if key != key.strip() or any(c in key for c in "\r\n\x00"):
        raise PeerError("API_SERVER_KEY must not contain whitespace at the ends or CR/LF/NUL")
    if len(key) < 16:
        raise PeerError("API_SERVER_KEY must be at least 16 characters")
    if key.lower() in _PLACEHOLDER_KEYS:
        raise PeerError("API_SERVER_KEY is a placeholder value; use e.g. secrets.token_hex(24)")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclass
class PeerConfig:
    home: Path
    port: int = 0  # 0: pick a free port
    key: str = field(default_factory=generate_key)
    model_port: int = 0  # 0: the model server binds any port
    host: str = "127.0.0.1"
    compression_in_place: bool = True  # Hermes 0.19.0 default
    # Set explicitly so Hermes never probes.  Below 64,000 Hermes refuses to
    # build an agent: every chat turn then ends in an SSE ``error`` event
    # (and a 500 on /chat), which is the one deterministic way to get it.
    context_length: int = 131072
    toolsets: list = field(default_factory=lambda: ["todo"])
    peer_python: Path = DEFAULT_PEER_VENV / "bin" / "python"
    model_name: str = "stub-model"
    delta_delay_ms: float = 20.0
    # Rotation recipe: in_place off (compaction rotates the session id) and
    # minimal protected head/tail, so the 2nd and every later
    # rotation_recipe() turn in a session rotates it.  See rotation_recipe().
    rotate_compression: bool = False
    extra_config: dict = field(default_factory=dict)  # merged into config.yaml
    # Named profiles served by this one server under ``/p/<name>/`` (multiplexing).
    profiles: tuple[str, ...] = ()

    def __post_init__(self):
        self.home = Path(self.home)
        self.peer_python = Path(self.peer_python)


def compression_threshold(context_length: int) -> int:
    """Prompt tokens at which Hermes 0.19.0 auto-compresses (default config).

    Windows under 512K use max(0.75 * window, 64,000); when that reaches the
    window itself Hermes falls back to 85% of the window.
    """
    floored = max(int(context_length * 0.75), MIN_CONTEXT_LENGTH)
    if floored >= context_length:
        return max(1, min(int(context_length * 0.85), context_length - 1))
    return floored


def rotation_recipe(context_length: int = 131072) -> str:
    """A user message that makes the real compressor fire during this turn.

    Hermes only compares the model's reported ``prompt_tokens`` with the
    threshold after a tool-call response (the turn-start preflight uses a
    rough character estimate), so the turn needs a tool call and a reported
    prompt size above the threshold.  The compressor also needs history to
    compact: with default protect_first_n/protect_last_n about 8 earlier
    messages, with ``rotate_compression`` any earlier turn.  With in_place
    compaction the id stays and older rows are archived; otherwise the turn's
    ``session_id`` is the new continuation.
    """
    return f"rotate now [[tool:todo]] [[ctx:{compression_threshold(context_length) + 1}]]"


def build_config(cfg: PeerConfig, model_port: int) -> dict:
    """HERMES_HOME/config.yaml contents for an offline, deterministic agent."""
    config = {
        "model": {
            "provider": "custom",
            "default": cfg.model_name,
            "base_url": f"http://{cfg.host}:{model_port}/v1",
            "api_key": "stub-model-key-not-a-secret",
            "context_length": cfg.context_length,
        },
        "platform_toolsets": {"api_server": list(cfg.toolsets)},
        "agent": {"environment_probe": False},
        # tirith would try to download a binary; lazy installs hit the network.
        "security": {"tirith_enabled": False, "allow_lazy_installs": False},
        "model_catalog": {"enabled": False},
        "kanban": {"dispatch_in_gateway": False},
        "curator": {"enabled": False},
        "lsp": {"enabled": False},
        "compression": {"in_place": bool(cfg.compression_in_place)},
    }
    if cfg.rotate_compression:
        config["compression"] = {"in_place": False, "protect_first_n": 0, "protect_last_n": 1}
    if cfg.profiles:
        config["gateway"] = {"multiplex_profiles": True}
    _merge(config, cfg.extra_config)
    return config


def _merge(base: dict, extra: dict) -> None:
    for k, v in (extra or {}).items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v


class Peer:
    def __init__(self, config: PeerConfig):
        self.config = config
        self.port = config.port
        self.model_port = config.model_port
        self._model: subprocess.Popen | None = None
        self._gateway: subprocess.Popen | None = None
        self._logs: list = []
        self.startup_seconds: float | None = None

    def pids(self) -> list[int]:
        """The running API server's and model server's process ids (for CPU accounting)."""
        return [p.pid for p in (self._gateway, self._model) if p is not None]

    # -- paths / urls ----------------------------------------------------
    @property
    def home(self) -> Path:
        return self.config.home

    @property
    def log_dir(self) -> Path:
        # Not HERMES_HOME/logs: that directory belongs to Hermes itself.
        return self.home / "peer-logs"

    @property
    def state_db(self) -> Path:
        return self.home / "state.db"

    @property
    def base_url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    @property
    def model_url(self) -> str:
        return f"http://{self.config.host}:{self.model_port}/v1"

    @property
    def key(self) -> str:
        return self.config.key

    def profile_url(self, profile: str) -> str:
        """The base URL of one multiplexed profile (``PeerConfig.profiles``)."""
        return f"{self.base_url}/p/{profile}"

    @property
    def auth_headers(self) -> dict:
        return {"Authorization": f"Bearer {self.config.key}"}

    @property
    def hermes_bin(self) -> Path:
        return self.config.peer_python.parent / "hermes"

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> Peer:
        cfg = self.config
        validate_key(cfg.key)
        if not self.hermes_bin.exists():
            raise PeerError(f"{self.hermes_bin} not found; run ensure_peer_venv() first")
        if self._gateway is not None:
            raise PeerError("peer already started")
        self._t0 = time.monotonic()
        (self.home / "home").mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._start_model()
            self.port = cfg.port or free_port(cfg.host)
            # JSON is valid YAML, so no YAML library is needed here.
            config_text = json.dumps(build_config(cfg, self.model_port), indent=2) + "\n"
            (self.home / "config.yaml").write_text(config_text)
            server = {
                "API_SERVER_ENABLED": "true",
                "API_SERVER_KEY": cfg.key,
                "API_SERVER_HOST": cfg.host,
                "API_SERVER_PORT": str(self.port),
            }
            if cfg.profiles:
                write_profiles(self.home, cfg.profiles, config_text, server)
            env = {
                "PATH": f"{cfg.peer_python.parent}:/usr/local/bin:/usr/bin:/bin",
                "HOME": str(self.home / "home"),
                "HERMES_HOME": str(self.home),
                # Hermes' safe mode (``hermes --safe-mode``): no plugin discovery, shell
                # hooks or MCP servers, none of which this offline peer configures; the
                # API server and the agent's tools are the same, the start cheaper.
                "HERMES_SAFE_MODE": "1",
                **server,
            }
            self._gateway = self._spawn(
                [str(self.hermes_bin), "gateway", "run"], "gateway.log", env
            )
        except BaseException:
            self.stop()
            raise
        return self

    def _spawn(self, argv: list, log_name: str, env: dict) -> subprocess.Popen:
        log = open(self.log_dir / log_name, "ab")  # noqa: SIM115 - closed in stop()
        self._logs.append(log)
        # New session = own process group, so stop() can signal every child.
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=str(self.home),
            start_new_session=True,
        )

    def _start_model(self) -> None:
        port_file = self.log_dir / "model.port"
        port_file.unlink(missing_ok=True)
        argv = [
            sys.executable,
            str(MODEL_SERVER),
            "--host",
            self.config.host,
            "--port",
            str(self.config.model_port),
            "--port-file",
            str(port_file),
            "--delta-delay-ms",
            str(self.config.delta_delay_ms),
        ]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONUNBUFFERED": "1"}
        self._model = self._spawn(argv, "model.log", env)
        deadline = time.monotonic() + 10
        while not port_file.exists():
            if self._model.poll() is not None or time.monotonic() > deadline:
                raise PeerError(f"model server failed to start: {self._tail('model.log')}")
            time.sleep(0.02)
        self.model_port = int(port_file.read_text())

    def wait_healthy(self, timeout: float = 30.0) -> float:
        """Poll /health; return seconds since start().  Fails fast with the reason."""
        if self._gateway is None:
            raise PeerError("peer not started")
        deadline = time.monotonic() + timeout
        while True:
            reason = self._failure_reason()
            if reason:
                self.stop()
                raise PeerError(reason)
            try:
                with urllib.request.urlopen(self.base_url + "/health", timeout=1) as resp:
                    if resp.status == 200:
                        self.startup_seconds = time.monotonic() - self._t0
                        return self.startup_seconds
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                tail = self._tail("gateway.log")
                self.stop()
                raise PeerError(
                    f"/health not answering after {timeout:.0f}s; gateway log tail: {tail}"
                )
            time.sleep(0.05)

    def _failure_reason(self) -> str | None:
        if self._model is not None and self._model.poll() is not None:
            return f"model server exited ({self._model.returncode}): {self._tail('model.log')}"
        if self._gateway.poll() is not None:
            return (
                f"hermes gateway exited ({self._gateway.returncode}): {self._tail('gateway.log')}"
            )
        for path in (
            self.log_dir / "gateway.log",
            self.home / "logs" / "errors.log",
            self.home / "logs" / "gateway.log",
        ):
            try:
                text = path.read_text(errors="replace")
            except OSError:
                continue
            if _REFUSAL in text:
                line = next(ln for ln in text.splitlines() if _REFUSAL in ln)
                return "Hermes API server refused to start: " + line.split(_REFUSAL, 1)[1].strip(
                    " :"
                )
        return None

    def _tail(self, name: str, lines: int = 15) -> str:
        try:
            return "\n".join(
                (self.log_dir / name).read_text(errors="replace").splitlines()[-lines:]
            )
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM both process groups, SIGKILL whatever is left after ``timeout`` seconds.

        ``timeout=0`` kills at once: for a throwaway peer, whose SIGTERM only starts
        the gateway's shutdown and its diagnostics (``ps``, ``pstree``).
        """
        procs = [p for p in (self._gateway, self._model) if p is not None]
        if timeout > 0:
            for p in procs:
                _signal_group(p, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for p in procs:
            if timeout > 0:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    p.wait(max(0.1, deadline - time.monotonic()))
            # Also catches grandchildren that outlive the group leader.
            _signal_group(p, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(5)
        self._gateway = self._model = None
        for log in self._logs:
            log.close()
        self._logs = []

    @property
    def running(self) -> bool:
        return self._gateway is not None and self._gateway.poll() is None

    def __enter__(self) -> Peer:
        self.start()
        self.wait_healthy()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def write_profiles(home: Path, names, config_text: str, server: dict) -> None:
    """Lay out multiplexed profiles the way hermes-agent 0.19.0 finds them.

    ``hermes_cli.profiles.profiles_to_serve`` serves every directory under
    ``HERMES_HOME/profiles/`` whose name matches ``[a-z0-9][a-z0-9_-]{0,63}``,
    each with its own ``state.db``. With multiplexing on, the default profile's
    settings resolve through its ``.env`` (``gateway.run._profile_runtime_scope``),
    so the API server's own settings go there too. A profile's ``.env`` must not
    name ``API_SERVER_*``: the gateway then skips that profile's adapters
    (``SecondaryPortBindingConfigError``), and its key would not be checked anyway
    (``APIServerAdapter._check_auth`` compares with the one server key).
    """
    (home / ".env").write_text("".join(f"{k}={v}\n" for k, v in server.items()))
    for name in names:
        profile = home / "profiles" / name
        (profile / "home").mkdir(parents=True, exist_ok=True)
        (profile / "config.yaml").write_text(config_text)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)  # pgid == pid thanks to start_new_session


def peer_requirements(version: str = PEER_VERSION) -> tuple[str, ...]:
    return (f"hermes-agent=={version}", AIOHTTP_REQUIREMENT)


def peer_venv_for(version: str = PEER_VERSION) -> Path:
    """Each hermes-agent release gets its own cached virtualenv in the checkout:
    ``.peer-venv`` for the default release, ``.peer-venv-<version>`` for the others."""
    if version == PEER_VERSION:
        return DEFAULT_PEER_VENV
    if not version or not all(part.isdigit() for part in version.split(".")):
        raise PeerError(f"not a hermes-agent release number: {version!r}")
    return REPO_ROOT / f".peer-venv-{version}"


def ensure_peer_venv(
    venv: Path | None = None, python: str | None = None, *, version: str = PEER_VERSION
) -> Path:
    """Create the peer virtualenv with hermes-agent ``version`` if missing; return its python.

    Idempotent: a marker file records the installed requirement set, so a
    second call is a cheap stat.  Kept apart from the dashboard venv because
    hermes-agent pins its own dependency tree (~240 MB).  Without ``venv``
    the release's own cached virtualenv (:func:`peer_venv_for`) is used.
    """
    venv = Path(venv) if venv is not None else peer_venv_for(version)
    requirements = peer_requirements(version)
    marker = venv / ".hermes-ui-peer"
    wanted = "\n".join(requirements) + "\n"
    py = venv / "bin" / "python"
    if marker.exists() and marker.read_text() == wanted and py.exists():
        return py
    uv = UV if UV.exists() and python is None else None
    if uv is not None:
        # uv (installed into .venv by the Makefile): one download cache for every
        # release's venv, and parallel installs; a cold peer venv took 36 s, pip 95 s.
        if not py.exists():
            subprocess.run(
                [str(uv), "venv", "-q", "--python", sys.executable, str(venv)], check=True
            )
        install = [str(uv), "pip", "install", "-q", "--python", str(py)]
    else:
        if not py.exists():
            subprocess.run([python or sys.executable, "-m", "venv", str(venv)], check=True)
        install = [str(py), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*install, *requirements], check=True)
    marker.write_text(wanted)
    return py


SEED_SCRIPT = Path(__file__).resolve().with_name("seed.py")


def run_seed(
    home: Path,
    profile: str = "demo",
    *,
    count: int = 10000,
    peer_python: Path = DEFAULT_PEER_VENV / "bin" / "python",
) -> dict:
    """Seed ``home/state.db`` with the peer venv's own ``hermes_state.SessionDB``.

    Runs in the peer virtualenv because SessionDB belongs to hermes-agent;
    idempotent (a second call reports ``already_seeded``).
    """
    argv = [str(peer_python), str(SEED_SCRIPT), "--home", str(home), "--profile", profile]
    if profile in ("bench", "paging", "team"):
        argv += ["--count", str(count)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise PeerError(f"seeding {profile} failed: {done.stderr.strip()[-800:]}")
    return json.loads(done.stdout)


def main(argv=None) -> None:
    """``python -m devtools.peer.launcher --home DIR``: run a peer until Ctrl-C."""
    import argparse

    ap = argparse.ArgumentParser(description="Run the offline Hermes demo peer")
    ap.add_argument("--home", type=Path, help="HERMES_HOME (required unless --install)")
    ap.add_argument("--port", type=int, default=8642)
    ap.add_argument("--key", default=os.environ.get("HERMES_API_KEY") or generate_key())
    ap.add_argument("--rotate-compression", action="store_true")
    ap.add_argument("--version", default=PEER_VERSION, help="hermes-agent release to run")
    ap.add_argument("--install", action="store_true", help="only install the release's venv")
    ap.add_argument(
        "--profile",
        action="append",
        default=[],
        help="serve this named profile too, under /p/<name>/ (multiplexing; repeatable)",
    )
    args = ap.parse_args(argv)
    python = ensure_peer_venv(version=args.version)
    if args.install:
        print(python)
        return
    if args.home is None:
        ap.error("--home is required")
    peer = Peer(
        PeerConfig(
            home=args.home,
            port=args.port,
            key=args.key,
            rotate_compression=args.rotate_compression,
            peer_python=python,
            profiles=tuple(args.profile),
        )
    )
    # SIGTERM -> SystemExit so the finally clause stops both process groups.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    peer.start()
    try:
        peer.wait_healthy(60)
        print(
            json.dumps(
                {
                    "base_url": peer.base_url,
                    "key": peer.key,
                    "home": str(peer.home),
                    "startup_seconds": round(peer.startup_seconds or 0, 2),
                    "profiles": {name: peer.profile_url(name) for name in args.profile},
                }
            ),
            flush=True,
        )
        while peer.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        peer.stop()


if __name__ == "__main__":
    main()
