from django.apps import AppConfig


class ChangesConfig(AppConfig):
    """Rename and close, create, fork, and the outcome of each change."""

    name = "hermes_ui.changes"
    label = "changes"
    verbose_name = "Changes"

    def ready(self):
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register(
            "changes", "changes/_session_actions.html", place="actions", order=10
        )
