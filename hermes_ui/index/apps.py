"""The dashboard's own index of Hermes sessions, and its memory of forks it made."""

from django.apps import AppConfig


class IndexConfig(AppConfig):
    name = "hermes_ui.index"
    label = "index"
    verbose_name = "Session index"

    def ready(self):
        from hermes_ui.index import erase
        from hermes_ui.index.models import ContentMessage, ContentSession, IndexedSession, KnownFork
        from hermes_ui.platform import erasers

        erasers.register(
            "index_rows",
            "index rows",
            erase.erase_rows,
            models=[IndexedSession],
            held=erase.held_rows,
        )
        erasers.register(
            "content_messages",
            "searchable transcript messages",
            erase.erase_content,
            models=[ContentSession, ContentMessage],
            held=erase.held_content,
        )
        erasers.register(
            "forks", "fork records", erase.erase_forks, models=[KnownFork], held=erase.held_forks
        )
