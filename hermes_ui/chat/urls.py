from django.urls import path

from hermes_ui.chat import stream_view, views
from hermes_ui.web.routes import session_action

urlpatterns = [
    *session_action("chat", views.session_chat, "session_chat"),
    path("e/<str:endpoint>/turns/<int:turn_id>/", views.turn_page, name="chat_turn"),
    path(
        "e/<str:endpoint>/turns/<int:turn_id>/stream/",
        stream_view.turn_stream,
        name="chat_turn_stream",
    ),
    path(
        "e/<str:endpoint>/turns/<int:turn_id>/cancel/", views.turn_cancel, name="chat_turn_cancel"
    ),
]
