from django.apps import AppConfig


class LiveConfig(AppConfig):
    """Live updates: the lists and the session page learn when Hermes changes."""

    name = "hermes_ui.live"
    label = "live"
    verbose_name = "Live updates"

    def ready(self):
        from hermes_ui.live import erase, notices
        from hermes_ui.live.models import LiveEvent, LiveNotice, LiveWatch
        from hermes_ui.platform import erasers, events

        erasers.register(
            "live_events",
            "live update events",
            erase.erase,
            models=[LiveEvent, LiveWatch, LiveNotice],
            held=erase.held,
        )
        # The deletion queue and review queue pages follow what those features emit.
        events.listen("live_notices", notices.record)
