"""The embedded demo endpoint: a seeded real Hermes peer under ``data/``.

The demo peer keeps its HERMES_HOME, key and port under the data folder so a
second ``make run`` reuses the same seeded database and logins.
"""

import json
import secrets
from pathlib import Path

from django.conf import settings

from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, generate_key, run_seed

DEMO_USERS = (("support", "support"), ("reviewer", "reviewer"), ("admin", "admin"),
              ("admin2", "admin"))  # fmt: skip


def demo_home() -> Path:
    return Path(settings.DATA_DIR) / "demo-peer"


def _secret_file(path: Path, make) -> str:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(make())
        path.chmod(0o600)
    return path.read_text().strip()


def start_demo_peer(port: int = 0) -> tuple[Peer, dict]:
    """Start the demo peer (seeding it on first use) and return it with the seed summary."""
    home = demo_home()
    home.mkdir(parents=True, exist_ok=True)
    key = _secret_file(home / "api_key", generate_key)
    python = ensure_peer_venv()
    summary = run_seed(home, "demo", peer_python=python)
    peer = Peer(PeerConfig(home=home, port=port, key=key, peer_python=python))
    peer.start()
    peer.wait_healthy(60)
    return peer, summary


def demo_passwords() -> dict[str, str]:
    """Passwords for the demo logins, generated once and kept in the data folder."""
    path = Path(settings.DATA_DIR) / "demo-logins.json"
    raw = _secret_file(
        path,
        lambda: json.dumps({name: secrets.token_urlsafe(9) for name, _ in DEMO_USERS}),
    )
    return json.loads(raw)
