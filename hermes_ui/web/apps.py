from django.apps import AppConfig


class WebConfig(AppConfig):
    """The shell every feature shares: roles, links, error pages, the base template tags."""

    name = "hermes_ui.web"
    label = "web"
    verbose_name = "Web shell"
