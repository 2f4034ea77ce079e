"""Print performance figures measured in one run against a real peer."""

import importlib
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

SUITES = (
    "lineage",
    "chat",
    "deletion",
    "scale",
    "search",
    "notes",
    "review_export",
    "triage",
    "usage",
    "review",
    "api",
    "notify",
    "retention",
    "session",
    "tasks",
    "live",
    "paging",
    "observability",
    "access",
)
# Run only when asked for by name (--only): too long for a routine run.
ON_REQUEST = ("scale100k",)


class Command(BaseCommand):
    help = "Run the benchmarks (all, or --only one suite) and print their figures."

    def add_arguments(self, parser):
        parser.add_argument("--only", choices=SUITES + ON_REQUEST)
        parser.add_argument(
            "--against",
            type=Path,
            metavar="PATH",
            help="another checkout: its pages measured beside these (--only session or search)",
        )
        parser.add_argument("--rounds", type=int, default=15, help="with --against")

    def handle(self, *args, only=None, against=None, rounds=15, **options):
        if against is not None:
            from devtools.bench import against as compare

            if only not in compare.SUITES:
                raise CommandError(f"--against needs --only {' or '.join(compare.SUITES)}")
            self.stdout.write(f"== {only}, this checkout against {against}")
            compare.run(self.stdout, only, against, rounds)
            return
        for name in [only] if only else SUITES:
            module = importlib.import_module(f"devtools.bench.{name}")
            if not hasattr(module, "run"):
                raise CommandError(f"benchmark suite {name!r} has no run()")
            self.stdout.write(f"== {name}")
            module.run(self.stdout)
