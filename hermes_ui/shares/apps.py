from django.apps import AppConfig


class SharesConfig(AppConfig):
    """Read-only share links to a masked snapshot of one session's transcript."""

    name = "hermes_ui.shares"
    label = "shares"
    verbose_name = "Share links"
