from django.apps import AppConfig


def hold(sender, **kwargs):
    """``runs.hold``, imported when a deletion first asks (its imports reach the Hermes
    client, which a process that deletes nothing need not load at start)."""
    from hermes_ui.retention import runs

    return runs.hold(sender, **kwargs)


def batch_panel(sender, **kwargs):
    """``views.batch_panel``, imported when a batch page is first shown."""
    from hermes_ui.retention import views

    return views.batch_panel(sender, **kwargs)


class RetentionConfig(AppConfig):
    """Retention rules whose deletions a second admin approves."""

    name = "hermes_ui.retention"
    label = "retention"
    verbose_name = "Retention"

    def ready(self):
        from hermes_ui.deletion import signals

        # A member protected since its batch was filed is held; a batch page shows the run.
        signals.holding.connect(hold, dispatch_uid="retention.hold")
        signals.batch_page.connect(batch_panel, dispatch_uid="retention.batch_panel")
