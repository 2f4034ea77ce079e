"""Routes of the chat feature, included before the catch-all session route."""

from django.urls import path

from hermes_ui.views import chat, chat_stream

urlpatterns = [
    path(
        "e/<str:endpoint>/sessions/<path:session_id>/chat/", chat.session_chat, name="session_chat"
    ),
    path("e/<str:endpoint>/turns/<int:turn_id>/", chat.turn_page, name="chat_turn"),
    path(
        "e/<str:endpoint>/turns/<int:turn_id>/stream/",
        chat_stream.turn_stream,
        name="chat_turn_stream",
    ),
    path("e/<str:endpoint>/turns/<int:turn_id>/cancel/", chat.turn_cancel, name="chat_turn_cancel"),
]
