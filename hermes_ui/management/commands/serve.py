"""``manage.py serve`` (``make serve``): production serving on WEB_CONCURRENCY workers."""

import os

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from hermes_ui.platform import metrics, serving
from hermes_ui.platform.env import env_int


class Command(BaseCommand):
    help = (
        "Migrate, collect static files, run the deployment checks, then serve with "
        "WEB_CONCURRENCY uvicorn workers (default: one per core) plus the periodic worker "
        "and HERMES_UI_TASK_WORKERS task workers."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST") or "127.0.0.1")
        parser.add_argument("--port", type=int, default=env_int("PORT", 8000, minimum=1))
        parser.add_argument(
            "--workers",
            type=int,
            default=env_int("WEB_CONCURRENCY", os.cpu_count() or 1, minimum=1),
            help="uvicorn worker processes (WEB_CONCURRENCY; more than one needs REDIS_URL)",
        )

    def handle(self, *args, host, port, workers, **options):
        serving.check_workers(workers)
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        call_command("check", deploy=True)
        metrics.fresh_directory()  # the last run's processes are gone
        tasks = settings.HERMES_UI_TASK_WORKERS
        argvs = [serving.uvicorn_argv(host, port, workers), serving.periodic_worker_argv()]
        argvs += serving.task_worker_argvs(tasks)
        self.stdout.write(
            f"Serving on http://{host}:{port}/ with {workers} worker(s),"
            " the periodic worker (syncs, probes, live polls, rules, retention, digests)"
            f" and {tasks} task worker(s) (HERMES_UI_TASK_WORKERS)."
        )
        code = serving.supervise(argvs, serving.child_env())
        if code:
            raise SystemExit(code)
