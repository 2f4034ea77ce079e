from django.apps import AppConfig


class TagsConfig(AppConfig):
    """Tags on sessions, from a managed list with colours."""

    name = "hermes_ui.tags"
    label = "tags"
    verbose_name = "Tags"

    def ready(self):
        from hermes_ui.platform import erasers
        from hermes_ui.search import badges, facets
        from hermes_ui.tags import erase, marks
        from hermes_ui.tags.models import SessionTag

        facets.register(
            "tag", parse=marks.parse, sessions=marks.sessions, negatable=True, help=marks.HELP
        )
        badges.register("tags", marks.badges)
        erasers.register(
            "session_tags", "session tags", erase.erase, models=[SessionTag], held=erase.held
        )
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register(
            "tags", "tags/_session_region.html", place="side", order=20, key="t"
        )
