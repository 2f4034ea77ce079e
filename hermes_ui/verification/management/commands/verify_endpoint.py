"""``manage.py verify_endpoint ID [--finish] --user NAME``: the contract's integration check."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from hermes_ui.deletion.policy import Refusal
from hermes_ui.endpoints import all_endpoints
from hermes_ui.verification import steps
from hermes_ui.verification.models import Verdict


class Command(BaseCommand):
    help = (
        "Run the sessions contract's eight-step integration check against one endpoint. "
        "Step 7 files a deletion request for another admin to approve; then run again "
        "with --finish to execute it and check which branches survived."
    )

    def add_arguments(self, parser):
        parser.add_argument("endpoint", help="a configured endpoint id")
        parser.add_argument("--user", required=True,
                            help="the dashboard user running the check (the requester; "
                                 "with --finish, an admin who executes)")  # fmt: skip
        parser.add_argument("--finish", action="store_true",
                            help="execute the approved deletion of the latest run")  # fmt: skip

    def handle(self, *args, endpoint, user, finish, **options):
        ep = next((e for e in all_endpoints() if e.id == endpoint), None)
        if ep is None:
            raise CommandError(f"No endpoint is configured with id {endpoint!r}.")
        person = get_user_model().objects.filter(username=user, is_active=True).first()
        if person is None:
            raise CommandError(f"No active user {user!r}.")
        say = self.stdout.write
        if not finish:
            report = steps.begin(ep, person, say)
        else:
            try:
                report = steps.finish(ep, person, say)
            except Refusal as refusal:
                raise CommandError(f"Refused ({refusal.code}): {refusal.message}") from None
            if report is None:
                raise CommandError(f"No verification of {endpoint!r} is waiting for --finish.")
        say(f"Report #{report.pk}: {report.get_verdict_display()}")
        if report.verdict == Verdict.FAILED:
            raise CommandError("The integration check failed; see the steps above.")
