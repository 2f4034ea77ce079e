from django.apps import AppConfig
from django.db.models.signals import post_migrate


class NotificationsConfig(AppConfig):
    """E-mail notifications of the features' events, per person's preferences."""

    name = "hermes_ui.notifications"
    label = "notifications"
    verbose_name = "Notifications"

    def ready(self):
        from hermes_ui.notifications import receivers

        post_migrate.connect(receivers.start_rounds, sender=self, dispatch_uid="notify.rounds")
