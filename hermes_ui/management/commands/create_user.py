"""Create or update a dashboard user non-interactively."""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from hermes_ui.access.accounts import ensure_user
from hermes_ui.web.roles import ROLES


class Command(BaseCommand):
    help = "Create or update a user with a role and a password."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=ROLES)
        parser.add_argument("--password", required=True)

    def handle(self, *args, username, role, password, **options):
        try:
            created = ensure_user(username, role, password)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        verb = "Created" if created else "Updated"
        self.stdout.write(f"{verb} user {username.strip()!r} with role {role}.")
