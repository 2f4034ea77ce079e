"""``manage.py access USER``: the person's grants (own and via groups) and role per endpoint."""

from django.core.management.base import BaseCommand

from hermes_ui.access import overview
from hermes_ui.access.management.commands._holder import holder


class Command(BaseCommand):
    help = (
        "Print a person's grants (their own and through their groups, with where each "
        "comes from) and their effective role on every configured endpoint."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", metavar="USER", help="the person's username")

    def handle(self, *args, name, **options):
        person = holder(name, group=False)["user"]
        out = self.stdout
        state = "" if person.is_active else " (inactive: no access at all)"
        if person.is_superuser:
            state += " (superuser: admin everywhere, whatever the grants)"
        out.write(f"{person.get_username()}{state}")
        groups = overview.groups_of(person)
        out.write("Groups:" if groups else "Groups: none")
        for group_name, origin in groups:
            out.write(f"  {group_name} ({origin})")
        lines = overview.lines_of(person)
        out.write("Grants:" if lines else "Grants: none")
        for line in lines:
            via = f"via group {line.via}, " if line.via else ""
            out.write(f"  {line.label} ({via}{line.origin_label})")
        out.write("Role per endpoint:")
        for item in overview.effective(person):
            out.write(f"  {item.endpoint}: {item.label}")
