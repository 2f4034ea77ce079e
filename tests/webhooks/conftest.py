import pytest

from tests.task_queue import TaskWorker
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
    made: list[TaskWorker] = []

    def start(**env) -> TaskWorker:
        worker = TaskWorker(tmp_path, **env).start()
        made.append(worker)
        return worker

    yield start
    for worker in made:
        worker.stop()
