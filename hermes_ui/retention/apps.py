from django.apps import AppConfig


class RetentionConfig(AppConfig):
    """Retention rules whose deletions a second admin approves."""

    name = "hermes_ui.retention"
    label = "retention"
    verbose_name = "Retention"

    def ready(self):
        from hermes_ui.deletion import holds, panels
        from hermes_ui.retention import runs, views

        holds.register(runs.hold)
        panels.register(views.batch_panel)
