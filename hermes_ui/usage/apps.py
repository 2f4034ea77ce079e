from django.apps import AppConfig


class UsageConfig(AppConfig):
    """Usage over time: token and cost changes booked per day at each index sync."""

    name = "hermes_ui.usage"
    label = "usage"
    verbose_name = "Usage"

    def ready(self):
        from hermes_ui.index.observers import counters_moved
        from hermes_ui.usage import booking

        counters_moved.connect(booking.on_counters_moved, dispatch_uid="usage.book")
