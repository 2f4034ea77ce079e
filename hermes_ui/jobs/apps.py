from django.apps import AppConfig


class JobsConfig(AppConfig):
    """Long work off the page request: background jobs and their progress pages."""

    name = "hermes_ui.jobs"
    label = "jobs"
    verbose_name = "Background jobs"

    def ready(self):
        from hermes_ui.jobs import runner
        from hermes_ui.tasks.worker import on_beat

        on_beat(runner.renew)  # a task worker's heartbeat renews the jobs it runs
