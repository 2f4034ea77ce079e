from django.apps import AppConfig


class SessionsConfig(AppConfig):
    """Browsing: the live session list and the session page."""

    name = "hermes_ui.sessions"
    # "sessions" is django.contrib.sessions' label.
    label = "hermes_sessions"
    verbose_name = "Sessions"

    def ready(self):
        from hermes_ui.web import session_regions

        session_regions.register(
            "facts",
            "sessions/_facts.html",
            place="side",
            order=10,
            label="Details",
            key="i",
            summary="sessions/_facts_summary.html",
        )
