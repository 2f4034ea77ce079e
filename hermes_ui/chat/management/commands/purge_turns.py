"""``manage.py purge_turns``: remove the text of turns older than the retention period."""

from django.conf import settings
from django.core.management.base import BaseCommand

from hermes_ui.chat import retention


class Command(BaseCommand):
    help = (
        "Remove the message, system message, answer and event payloads of chat turns older "
        "than HERMES_UI_TURN_RETENTION_DAYS, keeping their metadata (the web process also "
        "does this on every index refresh)."
    )

    def handle(self, *args, **options):
        counts = retention.purge()
        self.stdout.write(
            f"Purged the text of {counts['turns']} turn(s) and {counts['events']} event(s) "
            f"older than {settings.HERMES_UI_TURN_RETENTION_DAYS} day(s)."
        )
