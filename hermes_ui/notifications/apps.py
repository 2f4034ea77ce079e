from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """E-mail notifications of the features' events, per person's preferences."""

    name = "hermes_ui.notifications"
    label = "notifications"
    verbose_name = "Notifications"
