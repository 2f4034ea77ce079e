"""A bulk close survives a SIGKILLed worker, on SQLite (PostgreSQL: tests/scale)."""

import shutil
import sqlite3

import pytest

from tests.support.browser import DashboardServer, template_database
from tests.support.tasks import run_scenario

pytestmark = [pytest.mark.peer]


def test_a_bulk_close_resumed_after_a_sigkill_closes_each_session_once_sqlite(
    hermes_peer, tmp_path
):
    # A copy of the run's migrated SQLite template, whose users include "support".
    database = tmp_path / "dashboard.sqlite3"
    shutil.copyfile(template_database(DashboardServer(tmp_path, hermes_peer).base_env), database)
    env = {"HERMES_UI_DATA_DIR": str(tmp_path), "HERMES_UI_DB": str(database)}

    def query(sql: str) -> list:
        with sqlite3.connect(database, timeout=30) as conn:
            return conn.execute(sql).fetchall()

    run_scenario(env, query, hermes_peer, tmp_path)
