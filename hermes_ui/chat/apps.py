from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "hermes_ui.chat"
    label = "chat"
    verbose_name = "Chat turns"

    def ready(self):
        from hermes_ui.chat import erase
        from hermes_ui.chat.models import Turn, TurnEvent
        from hermes_ui.platform import erasers

        erasers.register(
            "turns",
            "chat turns",
            erase.erase,
            also={"turn_events": "chat turn events", "relay_streams": "relayed turn streams"},
            models=[Turn, TurnEvent],
            held=erase.held,
        )
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register("chat", "chat/_session_box.html", place="main", order=10)
