from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    """Webhooks: the events other tools subscribe to, delivered by tasks with retries."""

    name = "hermes_ui.webhooks"
    label = "webhooks"
    verbose_name = "Webhooks"

    def ready(self):
        from hermes_ui.platform import erasers, events
        from hermes_ui.webhooks import erase, receivers
        from hermes_ui.webhooks.models import Delivery

        events.listen("webhooks", receivers.on_event)
        erasers.register(
            "webhook_deliveries",
            "finished webhook deliveries",
            erase.erase,
            models=[Delivery],
            held=erase.held,
        )
