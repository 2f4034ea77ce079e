from django.apps import AppConfig


class SessionsConfig(AppConfig):
    """Browsing: the live session list and the session page."""

    name = "hermes_ui.sessions"
    # "sessions" is django.contrib.sessions' label.
    label = "hermes_sessions"
    verbose_name = "Sessions"
