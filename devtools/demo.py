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
# Two teams on the same Hermes: two multiplexed profiles, each its own state.db and
# its own dashboard endpoint (docs/admins/access.md, "Two teams on one Hermes").
DEMO_TEAMS = ("team-eu", "team-us")
TEAM_SESSIONS = 24
# (login, role, endpoint, sources): a person per team, and a contractor who sees only
# the EU team's scheduled (cron) sessions.
DEMO_TEAM_USERS = (
    ("eu-support", "support", "team-eu", ()),
    ("us-support", "support", "team-us", ()),
    ("eu-cron", "support", "team-eu", ("cron",)),
)

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
    for team in DEMO_TEAMS:  # hermes-agent 0.19 finds a profile's state.db here
        run_seed(home / "profiles" / team, "team", count=TEAM_SESSIONS, peer_python=python)
    config = PeerConfig(home=home, port=port, key=key, peer_python=python, profiles=DEMO_TEAMS)
    peer = Peer(config)
    peer.start()
    peer.wait_healthy(60)
    return peer, summary


def team_endpoints(peer) -> dict[str, str]:
    """The environment that makes each team's profile an endpoint of its own.

    hermes-agent 0.19.0 checks one API key for every profile it multiplexes
    (``APIServerAdapter._check_auth``), so each endpoint's key is that key; the
    tenant boundary is the profile's own state.db and the dashboard's grants.
    """
    profile_url = getattr(peer, "profile_url", None)
    if profile_url is None:
        return {}
    env = {"HERMES_EXTRA_ENDPOINTS": ",".join(f"{t}={profile_url(t)}" for t in DEMO_TEAMS)}
    for team in DEMO_TEAMS:
        env["HERMES_API_KEY_" + team.upper().replace("-", "_")] = peer.key
    return env


def demo_names() -> list[str]:
    return [name for name, _ in DEMO_USERS] + [name for name, *_ in DEMO_TEAM_USERS]


def demo_passwords() -> dict[str, str]:
    """Passwords for the demo logins, generated once and kept in the data folder.

    A file from an older demo without the team logins gets theirs added.
    """
    path = Path(settings.DATA_DIR) / "demo-logins.json"
    private_dir(path.parent)
    raw = read_or_create(
        path, lambda: json.dumps({name: secrets.token_urlsafe(9) for name in demo_names()})
    )
    passwords = json.loads(raw)
    missing = [name for name in demo_names() if name not in passwords]
    if missing:
        passwords.update({name: secrets.token_urlsafe(9) for name in missing})
        path.write_text(json.dumps(passwords))
    return passwords


def create_team_logins(passwords: dict[str, str]) -> list[str]:
    """The team accounts, each with its one grant; an existing account is left as it is."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from hermes_ui.access import grants

    User = get_user_model()
    kept = []
    for name, role, endpoint, sources in DEMO_TEAM_USERS:
        if endpoint not in settings.HERMES_ENDPOINTS or User.objects.filter(username=name).exists():
            kept.append(name)
            continue
        with transaction.atomic():
            user = User.objects.create_user(name, password=passwords[name])
            grants.grant(endpoint, role, sources, user=user)
    return kept
