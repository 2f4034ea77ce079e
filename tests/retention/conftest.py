"""The retention peer: cron and telegram sessions of several ages (tests/peers.py)."""

from tests.peers import aged  # noqa: F401 (fixture)
