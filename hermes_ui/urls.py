from django.contrib.auth import views as auth_views
from django.urls import include, path

from hermes_ui.views import home, session_detail, session_list

# Feature routes come before the bare session route: its ``path`` converter
# accepts slashes, so "<id>/lineage/" would otherwise be read as an id.
urlpatterns = [
    path("", home.home, name="home"),
    path("healthz", home.healthz, name="healthz"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("hermes_ui.urls_lineage")),
    path("", include("hermes_ui.urls_changes")),
    path("", include("hermes_ui.urls_chat")),
    path("", include("hermes_ui.urls_deletion")),
    path("e/<str:endpoint>/sessions/", session_list.session_list, name="session_list"),
    path("e/<str:endpoint>/open/", session_detail.session_open, name="session_open"),
    path(
        "e/<str:endpoint>/sessions/<path:session_id>/messages/",
        session_detail.session_messages,
        name="session_messages",
    ),
    path(
        "e/<str:endpoint>/sessions/<path:session_id>/",
        session_detail.session_detail,
        name="session_detail",
    ),
]

handler403 = "hermes_ui.views.errors.forbidden"
handler404 = "hermes_ui.views.errors.not_found"
handler500 = "hermes_ui.views.errors.server_error"
