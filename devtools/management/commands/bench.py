"""Print performance figures measured in one run against a real peer."""

import importlib

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
)
# Run only when asked for by name (--only): too long for a routine run.
ON_REQUEST = ("scale100k",)


class Command(BaseCommand):
    help = "Run the benchmarks (all, or --only one suite) and print their figures."

    def add_arguments(self, parser):
        parser.add_argument("--only", choices=SUITES + ON_REQUEST)

    def handle(self, *args, only=None, **options):
        for name in [only] if only else SUITES:
            module = importlib.import_module(f"devtools.bench.{name}")
            if not hasattr(module, "run"):
                raise CommandError(f"benchmark suite {name!r} has no run()")
            self.stdout.write(f"== {name}")
            module.run(self.stdout)
