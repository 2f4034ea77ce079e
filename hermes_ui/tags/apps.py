from django.apps import AppConfig


class TagsConfig(AppConfig):
    """Tags on sessions, from a managed list with colours."""

    name = "hermes_ui.tags"
    label = "tags"
    verbose_name = "Tags"

    def ready(self):
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register(
            "tags", "tags/_session_region.html", place="side", order=20, key="t"
        )
