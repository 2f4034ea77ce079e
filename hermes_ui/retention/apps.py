from django.apps import AppConfig


class RetentionConfig(AppConfig):
    """Retention rules whose deletions a second admin approves."""

    name = "hermes_ui.retention"
    label = "retention"
    verbose_name = "Retention"

    def ready(self):
        from hermes_ui.deletion import holds, panels
        from hermes_ui.platform import erasers
        from hermes_ui.retention import erase, runs, views
        from hermes_ui.retention.models import RetentionRun

        holds.register(runs.hold)
        panels.register(views.batch_panel)
        erasers.register(
            "retention_runs",
            "retention run records",
            erase.erase,
            models=[RetentionRun],
            held=erase.held,
        )
