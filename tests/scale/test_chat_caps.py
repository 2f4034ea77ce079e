"""The chat caps hold on PostgreSQL under parallel admissions (issue 23, finding 5).

Under READ COMMITTED the count of running turns and the insert of a new one
do not serialize by themselves: twenty POSTs to twenty sessions at once could
all count "below the cap" and all insert. ``tests/scale/caps_probe.py`` runs
twenty threads, each with its own connection, through ``admit`` at once.
"""

import re

import pytest

from tests.scale.conftest import manage

pytestmark = pytest.mark.scale


@pytest.fixture
def caps_database(migrated_database):
    """A migrated database of this test's own (a copy of the package's template)."""
    # A pool connection for every thread at once, so all twenty really run in parallel.
    return {**migrated_database, "HERMES_UI_DB_POOL_SIZE": "24"}


def test_twenty_parallel_admissions_never_pass_the_caps(caps_database, hermes_peer):
    env = caps_database
    probe = manage(
        env, hermes_peer, "shell", "-c", "from tests.scale.caps_probe import main; main()"
    )
    assert probe.returncode == 0, probe.stderr[-3000:]
    found = dict(re.findall(r"admitted (per-user|overall) (\d+) of 20", probe.stdout))
    assert set(found) == {"per-user", "overall"}, probe.stdout
    # Exactly the cap: never more (the race), and no fewer (nothing refused wrongly).
    assert int(found["per-user"]) == 3, probe.stdout
    assert int(found["overall"]) == 5, probe.stdout
    assert "refused {'user_turn_limit': 17}" in probe.stdout, probe.stdout
    assert "refused {'turn_limit': 15}" in probe.stdout, probe.stdout
