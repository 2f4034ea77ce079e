"""``manage.py verify_endpoint ID [--finish] --user ADMIN --yes``: the contract's integration check.

The check changes the endpoint it runs against: it creates sessions, runs a
chat turn through the agent and deletes what it created. So it needs an
admin and an explicit confirmation: ``--yes``, or "yes" typed at a terminal
after the prompt names the endpoint's URL. Without a terminal and without
``--yes`` it refuses before anything is sent.
"""

import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from hermes_ui.deletion.policy import Refusal
from hermes_ui.platform.endpoints import all_endpoints
from hermes_ui.verification import steps
from hermes_ui.verification.models import Verdict
from hermes_ui.web.roles import ADMIN, has_role

BEGIN_WARNING = (
    "verify_endpoint changes the Hermes at {url} (endpoint {id}): it creates a session "
    "and a branch of it, renames the session, runs one chat turn through the agent (which "
    "may call tools) and files their deletion for another admin's approval. Run it "
    "against a staging endpoint, not production."
)
FINISH_WARNING = (
    "verify_endpoint --finish executes the approved deletions of the check's sessions on "
    "the Hermes at {url} (endpoint {id}), and files the deletion of its branch."
)


class Command(BaseCommand):
    help = (
        "Run the sessions contract's eight-step integration check against one endpoint "
        "(it changes that endpoint: use a staging one). Step 7 files a deletion request for "
        "another admin to approve; then run again with --finish to execute it, check which "
        "branches survived and file the branch's deletion (one more --finish after its "
        "approval deletes it). Needs an admin --user and --yes (or a confirmation typed at a "
        "terminal)."
    )
    # ``stdin`` lets tests stand in for a terminal (as Django's createsuperuser does).
    stealth_options = ("stdin",)

    def add_arguments(self, parser):
        parser.add_argument("endpoint", help="a configured endpoint id")
        parser.add_argument(
            "--user",
            required=True,
            help="the admin running the check (the requester of its deletions; with "
            "--finish, the admin who executes them)",
        )
        parser.add_argument(
            "--finish", action="store_true", help="execute the approved deletions of the latest run"
        )
        parser.add_argument(
            "--yes",
            action="store_true",
            help="confirm that the endpoint may be changed (otherwise asked at a terminal)",
        )

    def handle(self, *args, endpoint, user, finish, yes, **options):
        ep = next((e for e in all_endpoints() if e.id == endpoint), None)
        if ep is None:
            raise CommandError(f"No endpoint is configured with id {endpoint!r}.")
        person = get_user_model().objects.filter(username=user, is_active=True).first()
        if person is None:
            raise CommandError(f"No active user {user!r}.")
        if not has_role(person, ADMIN):
            raise CommandError(
                f"User {user!r} is not an admin. verify_endpoint changes the endpoint and "
                "files and executes deletions, so it needs the admin role "
                "(manage.py create_user NAME --role admin). Nothing was sent."
            )
        warning = (FINISH_WARNING if finish else BEGIN_WARNING).format(url=ep.public_url, id=ep.id)
        if not yes:
            self._confirm(warning, options.get("stdin") or sys.stdin)
        say = self.stdout.write
        if not finish:
            report = steps.begin(ep, person, say)
            judged = True
        else:
            waiting = steps.waiting(ep)
            # A --finish that only cleans up after a run that already failed judges nothing.
            judged = waiting is not None and waiting.verdict == Verdict.AWAITING
            try:
                report = steps.finish(ep, person, say)
            except Refusal as refusal:
                raise CommandError(f"Refused ({refusal.code}): {refusal.message}") from None
            if report is None:
                raise CommandError(f"No verification of {endpoint!r} is waiting for --finish.")
        say(f"Report #{report.pk}: {report.get_verdict_display()}")
        if judged and report.verdict == Verdict.FAILED:
            raise CommandError("The integration check failed; see the steps above.")

    def _confirm(self, warning: str, stdin) -> None:
        """Ask at a terminal; refuse without one (a script must say --yes)."""
        isatty = getattr(stdin, "isatty", None)
        if not (callable(isatty) and isatty()):
            raise CommandError(
                f"{warning}\nNo terminal to confirm at: add --yes to run it anyway. "
                "Nothing was sent."
            )
        self.stdout.write(warning)
        self.stdout.write("Type 'yes' to continue: ", ending="")
        self.stdout.flush()
        answer = stdin.readline().strip().lower()
        if answer != "yes":
            raise CommandError("Not confirmed. Nothing was sent.")
