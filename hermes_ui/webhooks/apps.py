from django.apps import AppConfig
from django.db.models.signals import post_migrate


class WebhooksConfig(AppConfig):
    """Webhooks: the events other tools subscribe to, delivered by tasks with retries."""

    name = "hermes_ui.webhooks"
    label = "webhooks"
    verbose_name = "Webhooks"

    def ready(self):
        from hermes_ui.webhooks import receivers

        post_migrate.connect(receivers.start_round, sender=self, dispatch_uid="webhooks.round")
