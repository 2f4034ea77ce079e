from django.apps import AppConfig


class SessionsConfig(AppConfig):
    """Browsing: the live session list and the session page."""

    name = "hermes_ui.sessions"
    # "sessions" is django.contrib.sessions' label.
    label = "hermes_sessions"
    verbose_name = "Sessions"

    def ready(self):
        from hermes_ui.platform import erasers
        from hermes_ui.sessions import erase

        erasers.register("transcripts", "cached transcripts", erase.erase, related=True)
