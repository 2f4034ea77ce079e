"""``manage.py task_worker [--queue Q]``: run background tasks until stopped, with a heartbeat.

A worker serving the ``periodic`` queue also keeps the schedule's rounds
going (``background.schedule.start`` on every beat). A database outage is
waited out; SIGTERM lets the running task finish, and a running index sync
lets go of its lease (a second signal stops at once).
"""

from __future__ import annotations

import logging

from django.core.management.base import BaseCommand, CommandError
from django.utils.crypto import get_random_string

from hermes_ui.background import schedule
from hermes_ui.background.jobs import runner
from hermes_ui.background.workers.worker import Heart, make_worker, run_through_outages
from hermes_ui.index import stopping

QUEUES = ("default", schedule.QUEUE)


class Command(BaseCommand):
    help = "Run the dashboard's background tasks (django-tasks-db's worker plus a heartbeat)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--interval", type=float, default=1.0, help="seconds between polls of an empty queue"
        )
        parser.add_argument("--worker-id", default="", help="unique id (default: random)")
        parser.add_argument(
            "--queue",
            action="append",
            default=[],
            help="serve only this queue: default (jobs) or periodic (the schedule); "
            "repeatable (default: both)",
        )

    def handle(self, *args, interval=1.0, worker_id="", queue=(), **options):
        unknown = set(queue) - set(QUEUES)
        if unknown:
            raise CommandError(f"unknown queue {', '.join(sorted(unknown))}: {', '.join(QUEUES)}")
        queues = tuple(queue) or QUEUES
        worker_id = (worker_id or get_random_string(32))[:64]
        for name in ("django_tasks", "django_tasks_db", "hermes_ui.background"):
            logging.getLogger(name).setLevel(logging.INFO)
        worker = make_worker(worker_id, interval=max(interval, 0.05), queues=queues)
        worker.on_stop = stopping.request_stop
        hooks = (runner.renew, schedule.start) if schedule.QUEUE in queues else (runner.renew,)
        self.stdout.write(f"task worker {worker_id} started ({', '.join(queues)})")
        self.stdout.flush()
        with Heart(worker_id, hooks=hooks):
            worker.configure_signals()
            try:
                run_through_outages(worker)
            except SystemExit as stop:  # the framework's own exit from its signal handler
                if stop.code:
                    raise
        self.stdout.write(f"task worker {worker_id} stopped")
