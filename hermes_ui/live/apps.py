from django.apps import AppConfig


class LiveConfig(AppConfig):
    """Live updates: the lists and the session page learn when Hermes changes."""

    name = "hermes_ui.live"
    label = "live"
    verbose_name = "Live updates"

    def ready(self):
        from hermes_ui.live import erase
        from hermes_ui.live.models import LiveEvent, LiveWatch
        from hermes_ui.platform import erasers

        erasers.register(
            "live_events",
            "live update events",
            erase.erase,
            models=[LiveEvent, LiveWatch],
            held=erase.held,
        )
