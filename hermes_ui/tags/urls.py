"""URLs of the tags feature."""

from django.urls import path

from hermes_ui.tags.views import bulk, manage, session
from hermes_ui.web.routes import session_action

urlpatterns = [
    path("tags/", manage.tag_list, name="tag_list"),
    path("tags/<int:pk>/", manage.tag_edit, name="tag_edit"),
    path("tags/<int:pk>/delete/", manage.tag_delete, name="tag_delete"),
    path("e/<str:endpoint>/bulk/tags/", bulk.bulk_tags, name="bulk_tags"),
    *session_action("tags", session.session_tags, "session_tags"),
]
