from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "hermes_ui.chat"
    label = "chat"
    verbose_name = "Chat turns"
