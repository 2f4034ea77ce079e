"""A bulk close survives a SIGKILLed worker, on PostgreSQL (the suite's throwaway cluster)."""

import psycopg
import pytest

from tests.support.tasks import run_scenario

pytestmark = [pytest.mark.scale, pytest.mark.peer]


def test_a_bulk_close_resumed_after_a_sigkill_closes_each_session_once_postgres(
    migrated_database, hermes_peer, tmp_path
):
    # A copy of the package's migrated template, whose users include "support".
    url = migrated_database["DATABASE_URL"]
    env = {"DATABASE_URL": url, "HERMES_UI_DATA_DIR": str(tmp_path)}

    def query(sql: str) -> list:
        with psycopg.connect(url.replace("postgres://", "postgresql://")) as conn:
            return conn.execute(sql).fetchall()

    run_scenario(env, query, hermes_peer, tmp_path)
