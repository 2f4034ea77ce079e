"""``manage.py run_periodic [NAME ...]``: rounds of the schedule, once, in this process."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from hermes_ui.background import schedule
from hermes_ui.index import stopping


class Command(BaseCommand):
    help = (
        "Run periodic work once, now, whatever its interval: the named rounds of "
        "hermes_ui/background/schedule.py, or every round that is on. "
        f"Names: {', '.join(schedule.BY_NAME)}."
    )

    def add_arguments(self, parser):
        parser.add_argument("names", nargs="*", help="rounds to run (default: every round on)")

    def handle(self, *args, names=(), **options):
        unknown = [name for name in names if name not in schedule.BY_NAME]
        if unknown:
            raise CommandError(f"no round named {', '.join(unknown)}")
        chosen = names or [entry.name for entry in schedule.SCHEDULE if entry.seconds()]
        # A stop also ends a running sync, which releases its lease.
        with stopping.on_signals():
            for name in chosen:
                found = schedule.run_now(name)
                self.stdout.write(f"{name}: {found if isinstance(found, int | dict) else 'done'}")
