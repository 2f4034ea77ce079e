from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "hermes_ui.chat"
    label = "chat"
    verbose_name = "Chat turns"

    def ready(self):
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register("chat", "chat/_session_box.html", place="main", order=10)
