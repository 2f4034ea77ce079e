import os

import pytest

from tests.review.access_world import review_world  # noqa: F401 (fixture)
from tests.support.tasks import WorkerProcess, worker_env
from tests.webhooks.receiver import HookReceiver


@pytest.fixture
def hook_receiver(settings):
    """A receiver on loopback, allowed by HERMES_UI_WEBHOOK_ALLOW_HOSTS (as in the tests only)."""
    receiver = HookReceiver().start()
    settings.HERMES_UI_WEBHOOK_ALLOW_HOSTS = ["127.0.0.1"]
    yield receiver
    receiver.stop()


@pytest.fixture
def start_db_worker(transactional_db, tmp_path):
    """``start(**env)``: a real ``manage.py db_worker`` on the test database."""
    from django.conf import settings

    made: list[WorkerProcess] = []

    def start(**env) -> WorkerProcess:
        env = worker_env(HERMES_UI_DATA_DIR=str(settings.DATA_DIR), **env)
        worker_id = f"test-{os.getpid()}-{len(made) + 1}"
        worker = WorkerProcess(env, worker_id, tmp_path / "worker.log", command="db_worker")
        made.append(worker.start())
        return worker

    yield start
    for worker in made:
        worker.stop()
