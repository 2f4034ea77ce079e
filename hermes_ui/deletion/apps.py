from django.apps import AppConfig


class DeletionConfig(AppConfig):
    name = "hermes_ui.deletion"
    label = "deletion"
    verbose_name = "Deletion requests"

    def ready(self):
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register(
            "deletion", "deletion/_session_action.html", place="actions", order=20
        )
