from django.apps import AppConfig


class ReviewConfig(AppConfig):
    """Review queues: rubric labels on sessions and messages, notes, corrections, datasets."""

    name = "hermes_ui.review"
    label = "review"
    verbose_name = "Review queues"

    def ready(self):
        from hermes_ui.platform import erasers
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
        self._register_search_and_badges()

    def _register_search_and_badges(self):
        # Index filters (label:, reviewed:, queue:) and the badges of index rows and lineage nodes.
        from hermes_ui.review import badges, search_filters
        from hermes_ui.search import badges as index_badges

        search_filters.register()
        index_badges.register("review", badges.read)
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
