"""Real Hermes peers for the suite (hermes-agent 0.19.0 in .peer-venv, the stub model).

Every fixture that needs a peer of its own starts it here, so each one is
started, waited for and stopped the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, free_port, run_seed
from hermes_ui.endpoints import Endpoint


@contextmanager
def running_peer(home: Path, *, seed: str | None = None, **config) -> Iterator[Peer]:
    """A healthy peer in ``home`` (its database seeded with profile ``seed`` when
    given), stopped on the way out. ``config`` goes to ``PeerConfig``."""
    python = ensure_peer_venv()
    if seed:
        run_seed(home, seed, peer_python=python)
    peer = Peer(PeerConfig(home=home, peer_python=python, **config))
    try:
        peer.start()
        peer.wait_healthy(60)
        yield peer
    finally:
        peer.stop()


def unreachable_url() -> str:
    """An address nobody listens on: Hermes is down."""
    return f"http://127.0.0.1:{free_port()}"


def unreachable(settings, key: str = "k" * 24) -> Endpoint:
    """Point the ``local`` endpoint at :func:`unreachable_url`."""
    endpoint = Endpoint("local", unreachable_url(), key)
    settings.HERMES_ENDPOINTS = {"local": endpoint}
    return endpoint
