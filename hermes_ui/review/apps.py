from django.apps import AppConfig


class ReviewConfig(AppConfig):
    """Review queues: rubric labels on sessions and messages, notes, corrections, datasets."""

    name = "hermes_ui.review"
    label = "review"
    verbose_name = "Review queues"

    def ready(self):
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register(
            "review", "review/_session_labels.html", place="side", order=40, key="r"
        )
        session_regions.register(
            "notes", "review/_session_notes.html", place="side", order=30, key="o"
        )
        # Its part of each transcript message: "Queue…", notes, corrections.
        from hermes_ui.review.templatetags.review_notes import message_review
        from hermes_ui.web import message_parts

        message_parts.register("review", message_review)
