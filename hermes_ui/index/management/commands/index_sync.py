"""``manage.py index_sync [--endpoint ID] [--full | --recheck]``: sync the session index now."""

import time

from django.core.management.base import BaseCommand, CommandError

from hermes_ui.index import stopping, sync
from hermes_ui.index.freshness import eta_text
from hermes_ui.index.pacing import recheck_text
from hermes_ui.platform.endpoints import all_endpoints

PROGRESS_EVERY = 2.0  # seconds between progress lines of a transcript build


class Command(BaseCommand):
    help = (
        "Bring the dashboard's session index up to date: incremental by default "
        "(stops at the first page with nothing new), or a full sweep that also finds deletions."
    )

    def add_arguments(self, parser):
        parser.add_argument("--endpoint", help="only this endpoint id (default: all)")
        group = parser.add_mutually_exclusive_group()
        group.add_argument(
            "--full", action="store_true", help="a list sweep: page both lists to the end"
        )
        group.add_argument(
            "--recheck",
            "--verify",  # the former name
            action="store_true",
            help="a recheck sweep: read every indexed session by GET (resumes a stopped one)",
        )

    def handle(self, *args, endpoint=None, full=False, recheck=False, **options):
        endpoints = [ep for ep in all_endpoints() if endpoint in (None, ep.id)]
        if endpoint and not endpoints:
            raise CommandError(f"No Hermes endpoint is configured with id {endpoint!r}.")
        failed = []
        # SIGTERM / Ctrl-C: the running sync stops at its next heartbeat and lets go.
        with stopping.on_signals():
            for ep in endpoints:
                report = sync.sync(
                    ep,
                    full=True if full else False if recheck else None,
                    recheck=True if recheck else None,
                    on_progress=self._progress(ep.id),
                )
                self.stdout.write(report.summary(), ending="\n")
                self.stdout.flush()
                if report.error_code or report.skipped:
                    failed.append(ep.id)
                if report.error_code == "stopped":
                    break
        if failed:
            raise CommandError(f"Not synced: {', '.join(failed)}")

    def _progress(self, endpoint_id: str):
        """Print a transcript build's progress (sessions done/total, ETA) every few seconds."""
        last = [0.0]

        def show(progress: dict) -> None:
            if progress.get("phase") == "recheck":
                self._recheck_line(endpoint_id, progress, last)
                return
            if progress.get("phase") != "transcripts":
                return
            done, total = progress.get("done", 0), progress.get("total", 0)
            if done < total and time.monotonic() - last[0] < PROGRESS_EVERY:
                return
            last[0] = time.monotonic()
            left = eta_text(progress.get("eta"))
            self.stdout.write(
                f"{endpoint_id}: transcripts {done:,}/{total:,}"
                + (f", about {left} left" if left and done < total else "")
            )

        return show

    def _recheck_line(self, endpoint_id: str, progress: dict, last: list) -> None:
        recheck = progress.get("recheck") or {}
        done, total = recheck.get("done", 0), recheck.get("total", 0)
        if done < total and time.monotonic() - last[0] < PROGRESS_EVERY:
            return
        last[0] = time.monotonic()
        self.stdout.write(f"{endpoint_id}: {recheck_text(recheck, running=True)}")
