from django.apps import AppConfig


class JobsConfig(AppConfig):
    """Long work off the page request: background jobs and their progress pages."""

    name = "hermes_ui.background.jobs"
    label = "jobs"
    verbose_name = "Background jobs"
