from django.urls import path

from hermes_ui.access import views

urlpatterns = [
    path("access/", views.access_page, name="access_page"),
    path("access/grant/", views.grant_view, name="access_grant"),
    path("access/revoke/", views.revoke_view, name="access_revoke"),
    path("access/end-sessions/", views.end_sessions_view, name="access_end_sessions"),
]
