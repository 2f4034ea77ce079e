"""The demo seed and the launcher on older hermes-agent releases."""

import json
import sqlite3

import pytest

from devtools.peer import demo_ids as ids
from devtools.peer.launcher import (
    DEFAULT_PEER_VENV,
    PEER_VERSION,
    PeerError,
    ensure_peer_venv,
    peer_venv_for,
)

pytestmark = pytest.mark.release


def test_each_release_has_its_own_venv():
    assert peer_venv_for(PEER_VERSION) == DEFAULT_PEER_VENV
    assert peer_venv_for("0.15.2").name == ".peer-venv-0.15.2"
    with pytest.raises(PeerError):
        peer_venv_for("../0.15")


def test_the_installed_venv_runs_its_release():
    import subprocess

    python = ensure_peer_venv(version="0.15.2")
    out = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('hermes-agent'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "0.15.2"


SKIPPED = {"0.15.2": ["archive", "compact_in_place"], "0.17.0": ["compact_in_place"]}


def test_demo_seed_runs_where_session_db_is_older(release_peer):
    """0.15-0.17 SessionDB: 0.15 has no append_message(timestamp=), no archive and no
    messages.active column; the seed adapts by asking the object and the schema. The
    smoke set's peer of each release was seeded so: read what it wrote."""
    db = sqlite3.connect(release_peer.state_db)
    try:
        marker = db.execute(
            "SELECT value FROM state_meta WHERE key LIKE ?", ("%:demo",)
        ).fetchone()[0]
        summary = json.loads(marker)
        assert summary["sessions"] == 200
        assert summary["skipped"] == SKIPPED[release_peer.version]
        # Replayed timestamps are pinned even without append_message(timestamp=):
        # the compression root's first message is older than its tip's.
        root_ts = db.execute(
            "SELECT min(timestamp) FROM messages WHERE session_id = ?", (ids.COMPRESSION_ROOT,)
        ).fetchone()[0]
        tip_ts = db.execute(
            "SELECT min(timestamp) FROM messages WHERE session_id = ?", (ids.COMPRESSION_TIP,)
        ).fetchone()[0]
        assert root_ts < tip_ts
        assert summary["base_time"] - root_ts > 24 * 3600
    finally:
        db.close()
