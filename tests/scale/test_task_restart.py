"""A bulk close survives a SIGKILLed worker, on PostgreSQL (the suite's throwaway cluster)."""

import secrets

import psycopg
import pytest

from tests.support.tasks import run_scenario

pytestmark = [pytest.mark.scale, pytest.mark.peer]


def test_a_bulk_close_resumed_after_a_sigkill_closes_each_session_once_postgres(
    backends, hermes_peer, tmp_path
):
    name = f"tasks_{secrets.token_hex(4)}"
    base = backends["DATABASE_URL"].rsplit("/", 1)[0]
    with psycopg.connect(
        base.replace("postgres://", "postgresql://") + "/postgres", autocommit=True
    ) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = f"{base}/{name}"
    env = {"DATABASE_URL": url, "HERMES_UI_DATA_DIR": str(tmp_path)}

    def query(sql: str) -> list:
        with psycopg.connect(url.replace("postgres://", "postgresql://")) as conn:
            return conn.execute(sql).fetchall()

    run_scenario(env, query, hermes_peer, tmp_path)
