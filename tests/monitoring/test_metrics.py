"""``/metrics``: behind its Bearer token, the series move with what the dashboard does,
and no label holds a session id or anything else a user or Hermes controls."""

import httpx
import pytest
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from hermes_ui.background.jobs.models import Job, JobState
from hermes_ui.background.workers import worker  # its receiver counts finished tasks
from hermes_ui.hermes.client import client_for, use_transport
from hermes_ui.index.models import IndexSyncState
from hermes_ui.web.links import session_url
from hermes_ui.webhooks import outbox
from hermes_ui.webhooks import tasks as webhook_tasks
from hermes_ui.webhooks.models import Webhook
from tests.support.tasks import run_ready
from tests.webhooks import conftest as webhook_fixtures

TOKEN = "t" * 24
CANARY = "canary-7f3a9c"

pytestmark = pytest.mark.django_db
assert worker.count_outcome

hook_receiver = webhook_fixtures.hook_receiver


@pytest.fixture
def token(settings):
    settings.HERMES_UI_METRICS_TOKEN = TOKEN
    return TOKEN


def scrape(client: Client | None = None) -> str:
    answer = (client or Client()).get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert answer.status_code == 200, answer.status_code
    assert answer["Content-Type"].startswith("text/plain; version=")
    return answer.content.decode()


def samples(text: str, name: str) -> list:
    families = text_string_to_metric_families(text)
    return [s for family in families for s in family.samples if s.name == name]


def value(text: str, name: str, **labels) -> float:
    found = [s.value for s in samples(text, name) if labels.items() <= s.labels.items()]
    return sum(found)


def test_without_the_setting_metrics_is_not_there(settings):
    settings.HERMES_UI_METRICS_TOKEN = None
    assert Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 404


WRONG = [None, "Bearer wrong-token-wrong-token", f"Basic {TOKEN}", TOKEN, f"Bearer {TOKEN}x"]


@pytest.mark.parametrize("header", WRONG)
def test_without_the_right_bearer_token_it_answers_401(token, header):
    extra = {} if header is None else {"HTTP_AUTHORIZATION": header}
    answer = Client().get("/metrics", **extra)
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"].startswith("Bearer")
    assert b"hermes_ui" not in answer.content


def test_a_session_page_moves_request_and_hermes_call_series_without_its_id(
    token, empty_hermes, login
):
    empty_hermes.add(f"{CANARY}-session", title=f"{CANARY} title")
    before = scrape()
    page = login("support").get(session_url("local", f"{CANARY}-session") + f"?q={CANARY}")
    assert page.status_code == 200
    after = scrape()
    name = "hermes_ui_request_duration_seconds_count"
    view = {"view": "session_detail", "status": "2xx"}
    assert value(after, name, **view) == value(before, name, **view) + 1
    call = {"endpoint": "local", "operation": "session_get", "outcome": "ok"}
    calls = "hermes_ui_hermes_call_duration_seconds_count"
    assert value(after, calls, **call) > value(before, calls, **call)
    assert CANARY not in after


def test_failed_hermes_calls_count_by_outcome_and_open_the_breaker_gauge(token, mock_endpoint):
    def down(request):
        raise httpx.ConnectError("refused")

    with use_transport(httpx.MockTransport(down)):
        client = client_for(mock_endpoint)
        for _ in range(3):
            with pytest.raises(Exception):  # noqa: B017 - any Hermes error will do
                client.get_session("s1")
    text = scrape()
    failed = {"endpoint": "local", "operation": "session_get", "outcome": "transport"}
    assert value(text, "hermes_ui_hermes_call_duration_seconds_count", **failed) >= 3
    assert value(text, "hermes_ui_breaker_open", endpoint="local") == 1


def test_database_series_are_read_at_scrape_time(token, mock_endpoint):
    assert samples(scrape(), "hermes_ui_index_refresh_age_seconds") == []
    now = timezone.now()
    IndexSyncState.objects.create(
        **mock_endpoint.scope(),
        last_sync_at=now - timezone.timedelta(seconds=90),
        last_full_at=None,
        running_since=now,
        progress={"pages": 3, "expected": 12, "pace": {"pause_s": 0.25, "p95_ms": 80.0}},
    )
    Job.objects.create(kind="bulk_close", state=JobState.RUNNING)
    Job.objects.create(kind="bulk_close", state=JobState.INTERRUPTED)
    text = scrape()
    assert 90 <= value(text, "hermes_ui_index_refresh_age_seconds", endpoint="local") < 120
    assert value(text, "hermes_ui_index_sweep_age_seconds", endpoint="local") == float("inf")
    assert value(text, "hermes_ui_index_sync_list_calls", endpoint="local") == 3
    assert value(text, "hermes_ui_index_sweep_expected_list_calls", endpoint="local") == 12
    assert value(text, "hermes_ui_index_list_pause_seconds", endpoint="local") == 0.25
    assert value(text, "hermes_ui_index_list_call_p95_seconds", endpoint="local") == 0.08
    assert value(text, "hermes_ui_jobs", kind="bulk_close", state="running") == 1
    assert value(text, "hermes_ui_jobs", kind="bulk_close", state="interrupted") == 1
    assert value(text, "hermes_ui_database_up") == 1
    # No worker has beaten yet: its age is infinite, which the alert rules catch.
    assert value(text, "hermes_ui_task_worker_heartbeat_age_seconds") == float("inf")


def test_queue_depth_counts_waiting_tasks_by_queue(token, mock_endpoint):
    before = value(scrape(), "hermes_ui_tasks_queued", queue="default")
    webhook_tasks.deliver.enqueue("0")
    webhook_tasks.deliver.enqueue("1")
    assert value(scrape(), "hermes_ui_tasks_queued", queue="default") == before + 2


def test_deliveries_and_task_outcomes_are_counted(token, hook_receiver, settings):
    before = scrape()
    good = Webhook.objects.create(url=hook_receiver.url, secret="s" * 20, events=[])
    outbox.ping(good)
    run_ready()
    settings.HERMES_UI_WEBHOOK_ALLOW_HOSTS = []  # plain http refused for good: fails at once
    outbox.ping(Webhook.objects.create(url=hook_receiver.url, secret="s" * 20, events=[]))
    run_ready()
    after = scrape()
    for result in ("delivered", "failed"):
        name, labels = "hermes_ui_deliveries_total", {"channel": "webhook", "result": result}
        assert value(after, name, **labels) == value(before, name, **labels) + 1
    done = {"task": "hermes_ui.webhooks.tasks.deliver", "outcome": "successful"}
    finished = "hermes_ui_tasks_finished_total"
    assert value(after, finished, **done) >= value(before, finished, **done) + 2
