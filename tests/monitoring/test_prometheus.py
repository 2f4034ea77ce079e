"""Debian's Prometheus scrapes a running dashboard (uvicorn, the periodic worker, a task
worker) that served pages and called Hermes: every series is there, the counters move,
``promtool`` accepts the output, and the alert rules of the docs load."""

import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from devtools.services import Prometheus
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.changes.conftest import http_login
from tests.support.browser import DashboardServer
from tests.support.waiting import until

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "operating" / "alerts.yml"
TOKEN = "prometheus-scrape-token-5f2e"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"

pytestmark = pytest.mark.peer

# Every series docs/operating/monitoring.md lists.
SERIES = [
    "hermes_ui_request_duration_seconds_count",
    "hermes_ui_hermes_call_duration_seconds_count",
    "hermes_ui_breaker_open",
    "hermes_ui_bulkhead_in_use",
    "hermes_ui_bulkhead_slots",
    "hermes_ui_bulkhead_full_total",
    "hermes_ui_index_refresh_age_seconds",
    "hermes_ui_index_sweep_age_seconds",
    "hermes_ui_index_sync_running",
    "hermes_ui_index_sync_list_calls",
    "hermes_ui_index_list_pause_seconds",
    "hermes_ui_index_list_call_p95_seconds",
    "hermes_ui_tasks_queued",
    "hermes_ui_tasks_finished_total",
    "hermes_ui_task_worker_heartbeat_age_seconds",
    "hermes_ui_task_workers",
    "hermes_ui_deliveries_total",
    "hermes_ui_live_streams",
    "hermes_ui_jobs",
    "hermes_ui_database_up",
]

# A job of each watched state, and a webhook whose delivery the task worker attempts
# (and fails: the address is not allowed), so its counter is the worker process's.
ARRANGE = """
from hermes_ui.background.jobs.models import Job, JobState
from hermes_ui.webhooks import outbox
from hermes_ui.webhooks.models import Webhook
Job.objects.create(kind="bulk_close", state=JobState.RUNNING)
Job.objects.create(kind="bulk_close", state=JobState.INTERRUPTED)
outbox.ping(Webhook.objects.create(url="http://127.0.0.1:9/hook", secret="s" * 20, events=[]))
"""


@pytest.fixture(scope="module")
def watched(tmp_path_factory, hermes_peer):
    env = {"HERMES_UI_METRICS_TOKEN": TOKEN, "HERMES_UI_ROUND_SECONDS": "1"}
    server = DashboardServer(tmp_path_factory.mktemp("ui-metrics"), hermes_peer, env, True)
    server.start()
    try:
        with Prometheus(f"127.0.0.1:{server.port}", TOKEN, RULES) as prometheus:
            until(lambda: prometheus.query('up{job="hermes-ui"} == 1'), 60, "no scrape")
            yield server, prometheus
    finally:
        server.stop()


def total(prometheus: Prometheus, expr: str) -> float:
    found = prometheus.query(f"sum({expr})")
    return float(found[0]["value"][1]) if found else 0.0


def test_prometheus_scrapes_every_series_and_they_move(watched, hermes_peer):
    server, prometheus = watched
    server.manage("shell", "-c", ARRANGE)
    peer = HermesClient(Endpoint("local", hermes_peer.base_url, hermes_peer.key))
    ids = [row["id"] for row in peer.list_sessions(limit=3)["data"]]
    pages = 'hermes_ui_request_duration_seconds_count{view="session_detail",status="2xx"}'
    gets = 'hermes_ui_hermes_call_duration_seconds_count{endpoint="local",outcome="ok"}'
    pages_before, gets_before = total(prometheus, pages), total(prometheus, gets)
    with httpx.Client(base_url=server.base_url, timeout=60) as http:
        http_login(http, "support")
        for session_id in ids:
            assert http.get(session_url("local", session_id)).status_code == 200
    until(lambda: total(prometheus, pages) >= pages_before + 3, 60, "page count never moved")
    until(lambda: total(prometheus, gets) >= gets_before + 3, 60, "Hermes calls never moved")

    def present():
        names = set(prometheus.api("label/__name__/values"))
        return not [name for name in SERIES if name not in names]

    until(present, 90, "series missing", interval=0.5)
    # A plain-http URL is refused for good (not_https): the delivery fails at once.
    failed = 'hermes_ui_deliveries_total{channel="webhook",result="failed"}'
    until(lambda: total(prometheus, failed) >= 1, 60, "the task worker's delivery not seen")
    assert total(prometheus, 'hermes_ui_jobs{state="interrupted"}') == 1
    assert total(prometheus, 'hermes_ui_tasks_finished_total{outcome="successful"}') > 0
    assert total(prometheus, "hermes_ui_index_refresh_age_seconds") < 600
    # No label value holds a session id: labels are names fixed in the code.
    series = prometheus.api("series", **{"match[]": '{__name__=~"hermes_ui_.*"}'})
    values = {value for labels in series for value in labels.values()}
    assert not [v for v in values for session_id in ids if session_id in v]


def test_promtool_accepts_the_metrics_output(watched):
    server, _ = watched
    answer = httpx.get(
        server.base_url + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
    )
    assert answer.status_code == 200
    checked = subprocess.run(
        [PROMTOOL, "check", "metrics"], input=answer.text, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_alert_rules_load_into_prometheus(watched):
    _, prometheus = watched
    groups = prometheus.api("rules")["groups"]
    names = {rule["name"] for group in groups for rule in group["rules"]}
    assert names == {
        "HermesDown",
        "HermesIndexStale",
        "HermesTaskQueueBackingUp",
        "HermesDeliveriesFailing",
        "HermesBreakerOpen",
    }
    assert all(rule["health"] != "err" for group in groups for rule in group["rules"])


def test_promtool_checks_the_rules_file_the_docs_show():
    checked = subprocess.run(
        [PROMTOOL, "check", "rules", str(RULES)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS: 5 rules found" in checked.stdout
    page = (ROOT / "docs" / "operating" / "monitoring.md").read_text()
    assert RULES.read_text() in page  # the page shows the file as it is
