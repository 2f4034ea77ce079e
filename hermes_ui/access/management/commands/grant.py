"""``manage.py grant USER --endpoint ID|'*' --role ROLE [--source S ...]``: give a role.

The console's own way to do what the /access/ page does; audited with no
actor (the server's console).
"""

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from hermes_ui.access import grants
from hermes_ui.access.management.commands._holder import add_holder_arguments, holder, label


class Command(BaseCommand):
    help = (
        "Give a person (or, with --group, an identity-provider group) a role on one "
        "endpoint or on every endpoint ('*'), optionally only for some sources. "
        "Replaces the local grant they had on that endpoint."
    )

    def add_arguments(self, parser):
        add_holder_arguments(parser)
        parser.add_argument("--endpoint", required=True, help="an endpoint id, or '*' for all")
        parser.add_argument("--role", required=True, help="support, reviewer or admin")
        parser.add_argument(
            "--source",
            action="append",
            default=[],
            dest="sources",
            help="only sessions of this Hermes source (repeat for several; none: every source)",
        )

    def handle(self, *args, name, group, endpoint, role, sources, **options):
        try:
            grants.clean(endpoint, role, sources)  # before a new group is created
            with transaction.atomic():
                found = holder(name, group=group, create=True)
                made = grants.grant(endpoint, role, sources, by=None, **found)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        limit = f" (sources: {', '.join(made.sources)})" if made.sources else ""
        self.stdout.write(f"{label(found)} now has {made.role} on {made.endpoint}{limit}.")
