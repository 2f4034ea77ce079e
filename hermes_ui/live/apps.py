from django.apps import AppConfig


class LiveConfig(AppConfig):
    """Live updates: the lists and the session page learn when Hermes changes."""

    name = "hermes_ui.live"
    label = "live"
    verbose_name = "Live updates"

    def ready(self):
        from hermes_ui.live import notices
        from hermes_ui.platform import events

        # The deletion queue and review queue pages follow what those features emit.
        events.listen("live_notices", notices.record)
