from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """E-mail notifications of the features' events, per person's preferences."""

    name = "hermes_ui.notifications"
    label = "notifications"
    verbose_name = "Notifications"

    def ready(self):
        from hermes_ui.notifications import erase, receivers
        from hermes_ui.notifications.models import Notice
        from hermes_ui.platform import erasers, events

        events.listen("notifications", receivers.on_event)
        erasers.register(
            "notices",
            "notifications waiting to be mailed",
            erase.erase,
            models=[Notice],
            held=erase.held,
        )
