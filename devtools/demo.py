"""The embedded demo endpoint: a seeded real Hermes peer under ``data/``.

The demo peer keeps its HERMES_HOME, key and port under the data folder so a
second ``make run`` reuses the same seeded database and logins. It runs as
endpoint id ``demo``, never the default ``local``: the dashboard's records
of a real Hermes run from the same data folder stay apart from the demo's.
"""

import json
import secrets
from pathlib import Path

from django.conf import settings

from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, generate_key, run_seed
from hermes_ui.platform.private_files import private_dir, read_or_create

DEMO_ENDPOINT_ID = "demo"

DEMO_USERS = (
    ("support", "support"),
    ("reviewer", "reviewer"),
    ("admin", "admin"),
    ("admin2", "admin"),
)


def demo_home() -> Path:
    return Path(settings.DATA_DIR) / "demo-peer"


def start_demo_peer(port: int = 0) -> tuple[Peer, dict]:
    """Start the demo peer (seeding it on first use) and return it with the seed summary."""
    home = private_dir(demo_home())
    key = read_or_create(home / "api_key", generate_key)
    python = ensure_peer_venv()
    summary = run_seed(home, "demo", peer_python=python)
    peer = Peer(PeerConfig(home=home, port=port, key=key, peer_python=python))
    peer.start()
    peer.wait_healthy(60)
    return peer, summary


def demo_passwords() -> dict[str, str]:
    """Passwords for the demo logins, generated once and kept in the data folder."""
    path = Path(settings.DATA_DIR) / "demo-logins.json"
    private_dir(path.parent)
    raw = read_or_create(
        path, lambda: json.dumps({name: secrets.token_urlsafe(9) for name, _ in DEMO_USERS})
    )
    return json.loads(raw)
