from django.apps import AppConfig


class ReviewConfig(AppConfig):
    """Review queues: rubric labels on sessions and messages, notes, corrections, datasets."""

    name = "hermes_ui.review"
    label = "review"
    verbose_name = "Review queues"

    def ready(self):
        from hermes_ui import erasers
        from hermes_ui.review import erase

        first, *rest = erase.KINDS.items()
        erasers.register(
            first[0],
            first[1][1],
            erase.erase,
            models=[model for model, _ in erase.KINDS.values()],
            also={kind: label for kind, (_, label) in rest},
            held=erase.held,
        )
