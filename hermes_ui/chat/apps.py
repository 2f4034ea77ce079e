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
