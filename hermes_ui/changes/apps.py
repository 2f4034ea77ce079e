from django.apps import AppConfig


class ChangesConfig(AppConfig):
    """Rename and close, create, fork, and the outcome of each change."""

    name = "hermes_ui.changes"
    label = "changes"
    verbose_name = "Changes"

    def ready(self):
        from hermes_ui.audit.models import IdempotencyRecord
        from hermes_ui.changes import erase
        from hermes_ui.platform import erasers

        erasers.register(
            "change_records",
            "titles in recorded change results",
            erase.erase,
            models=[IdempotencyRecord],
        )
