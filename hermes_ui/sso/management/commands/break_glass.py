"""Print a one-time sign-in link for an admin, for when single sign-on is down."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from hermes_ui.access.rules import access_of
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.sso import break_glass


class Command(BaseCommand):
    help = (
        "Print a sign-in link for an admin account, valid once and for "
        f"{break_glass.MAX_AGE // 60} minutes (works while HERMES_UI_PASSWORD_LOGIN=false)."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--base-url",
            default="",
            help="the dashboard address, e.g. https://hermes.example.com (default: the path only)",
        )

    def handle(self, *args, username, base_url, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No account {username!r}.")
        if not access_of(user).instance_admin:
            raise CommandError(
                f"{username!r} is not an active admin on every endpoint (*): "
                "break-glass is for instance admins."
            )
        record(user, capability="auth.break_glass_issued", endpoint="", outcome=Outcome.SUCCESS)
        self.stdout.write(base_url.rstrip("/") + break_glass.make_path(user))
