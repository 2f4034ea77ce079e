"""The retention peer: cron and telegram sessions of several ages (tests/support/peers.py)."""

from tests.support.peers import aged  # noqa: F401 (fixture)
