"""``manage.py index_refresher [--once] [--interval S]``: the index refresher process."""

import signal
import threading

from django.conf import settings
from django.core.management.base import BaseCommand

from hermes_ui import background


class Command(BaseCommand):
    help = (
        "Keep the session index fresh: sync every endpoint now and every "
        "HERMES_INDEX_REFRESH_SECONDS, until stopped. Safe to run on several hosts: "
        "a database lease lets one sync per endpoint run at a time."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="one round, then exit")
        parser.add_argument(
            "--interval", type=float, default=None, help="seconds between rounds (default: setting)"
        )

    def handle(self, *args, once=False, interval=None, **options):
        interval = settings.HERMES_INDEX_REFRESH_SECONDS if interval is None else interval
        if interval <= 0 and not once:
            self.stdout.write(
                "Index refresh is off (HERMES_INDEX_REFRESH_SECONDS=0); "
                "turn retention still runs hourly."
            )
        stop = threading.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: stop.set())
        rounds = background.run(interval, stop, once=once)
        self.stdout.write(f"index refresher stopped after {rounds} round(s)")
