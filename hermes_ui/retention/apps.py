from django.apps import AppConfig


class RetentionConfig(AppConfig):
    """Retention rules whose deletions a second admin approves."""

    name = "hermes_ui.retention"
    label = "retention"
    verbose_name = "Retention"

    def ready(self):
        from hermes_ui.deletion import signals
        from hermes_ui.retention import runs, views

        # A member protected since its batch was filed is held; a batch page shows the run.
        signals.holding.connect(runs.hold, dispatch_uid="retention.hold")
        signals.batch_page.connect(views.batch_panel, dispatch_uid="retention.batch_panel")
