from django.urls import path

from hermes_ui.chat.views import stream, turns
from hermes_ui.web.routes import session_action

urlpatterns = [
    *session_action("chat", turns.session_chat, "session_chat"),
    path("e/<str:endpoint>/turns/<int:turn_id>/", turns.turn_page, name="chat_turn"),
    path(
        "e/<str:endpoint>/turns/<int:turn_id>/stream/",
        stream.turn_stream,
        name="chat_turn_stream",
    ),
    path(
        "e/<str:endpoint>/turns/<int:turn_id>/cancel/", turns.turn_cancel, name="chat_turn_cancel"
    ),
]
