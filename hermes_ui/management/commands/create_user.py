"""Create or update a dashboard user non-interactively."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from hermes_ui.access import grants
from hermes_ui.access.accounts import ensure_user
from hermes_ui.web.roles import ROLES


class Command(BaseCommand):
    help = (
        "Create or update a user with a role (on every endpoint, or on --endpoint) and a password."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=ROLES)
        parser.add_argument("--password", required=True)
        parser.add_argument(
            "--endpoint",
            default="*",
            help="the endpoint the role is on (default '*': every endpoint)",
        )

    def handle(self, *args, username, role, password, endpoint, **options):
        try:
            created = ensure_user(username, role, password, _giver(endpoint.strip(), role))
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        verb = "Created" if created else "Updated"
        self.stdout.write(
            f"{verb} user {username.strip()!r} with role {role} on {endpoint.strip()}."
        )


def _giver(endpoint: str, role: str):
    """None for ``*`` (ensure_user's own role on every endpoint), else a grant on ``endpoint``."""
    if endpoint == "*":
        return None
    return lambda user: grants.grant(endpoint, role, user=user)
