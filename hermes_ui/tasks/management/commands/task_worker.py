"""``manage.py task_worker``: run background tasks until stopped, with a heartbeat row.

``make run`` starts one beside the web process, ``make serve`` starts
``HERMES_UI_TASK_WORKERS``. A database outage is waited out, not fatal.
SIGTERM or Ctrl-C lets the running task finish
(a second one stops it at once: the task is then recovered by the next
worker, see ``hermes_ui.tasks.recovery``).
"""

from __future__ import annotations

import logging

from django.core.management.base import BaseCommand
from django.utils.crypto import get_random_string

from hermes_ui.tasks.worker import Heart, make_worker, run_through_outages


class Command(BaseCommand):
    help = "Run the dashboard's background tasks (django-tasks-db's worker plus a heartbeat)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--interval", type=float, default=1.0, help="seconds between polls of an empty queue"
        )
        parser.add_argument("--worker-id", default="", help="unique id (default: random)")

    def handle(self, *args, interval=1.0, worker_id="", **options):
        worker_id = (worker_id or get_random_string(32))[:64]
        for name in ("django_tasks", "django_tasks_db", "hermes_ui.tasks"):
            logging.getLogger(name).setLevel(logging.INFO)
        worker = make_worker(worker_id, interval=max(interval, 0.05))
        self.stdout.write(f"task worker {worker_id} started")
        self.stdout.flush()
        with Heart(worker_id):
            worker.configure_signals()
            try:
                run_through_outages(worker)
            except SystemExit as stop:  # the framework's own exit from its signal handler
                if stop.code:
                    raise
        self.stdout.write(f"task worker {worker_id} stopped")
