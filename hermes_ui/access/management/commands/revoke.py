"""``manage.py revoke USER --endpoint ID|'*'``: take every grant there from a person or group.

Audited with no actor (the server's console). A grant the identity provider
gave comes back at the next sign-in or sync unless it changes there.
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from hermes_ui.access import grants
from hermes_ui.access.management.commands._holder import add_holder_arguments, holder, label
from hermes_ui.access.models import ALL, Grant


class Command(BaseCommand):
    help = "Take every grant on an endpoint (or on '*') from a person (or, with --group, a group)."

    def add_arguments(self, parser):
        add_holder_arguments(parser)
        parser.add_argument("--endpoint", required=True, help="an endpoint id, or '*'")

    def handle(self, *args, name, group, endpoint, **options):
        found = holder(name, group=group)
        endpoint = endpoint.strip()
        held = Grant.objects.filter(endpoint=endpoint, **found).exists()
        if not held and endpoint != ALL and endpoint not in settings.HERMES_ENDPOINTS:
            known = ", ".join(["*", *settings.HERMES_ENDPOINTS])
            raise CommandError(f"No endpoint {endpoint!r} is configured (known: {known}).")
        taken = grants.revoke(endpoint, by=None, **found)
        if not taken:
            raise CommandError(f"{label(found)} has no grant on {endpoint}.")
        self.stdout.write(
            f"{label(found)} no longer has a role on {endpoint} "
            f"({taken} grant{'s' if taken != 1 else ''} revoked)."
        )
