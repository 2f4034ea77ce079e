"""``manage.py index_sync [--endpoint ID] [--full]``: sync the session index now."""

from django.core.management.base import BaseCommand, CommandError

from hermes_ui.endpoints import all_endpoints
from hermes_ui.index import sync


class Command(BaseCommand):
    help = (
        "Bring the dashboard's session index up to date: incremental by default "
        "(stops at the first page with nothing new), or a full sweep that also finds deletions."
    )

    def add_arguments(self, parser):
        parser.add_argument("--endpoint", help="only this endpoint id (default: all)")
        parser.add_argument("--full", action="store_true", help="page both lists to the end")

    def handle(self, *args, endpoint=None, full=False, **options):
        endpoints = [ep for ep in all_endpoints() if endpoint in (None, ep.id)]
        if endpoint and not endpoints:
            raise CommandError(f"No Hermes endpoint is configured with id {endpoint!r}.")
        failed = []
        for ep in endpoints:
            report = sync.sync(ep, full=True if full else None)
            self.stdout.write(report.summary())
            if report.error_code or report.skipped:
                failed.append(ep.id)
        if failed:
            raise CommandError(f"Not synced: {', '.join(failed)}")
