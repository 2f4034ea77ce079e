from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    """Webhooks: the events other tools subscribe to, delivered by tasks with retries."""

    name = "hermes_ui.webhooks"
    label = "webhooks"
    verbose_name = "Webhooks"
