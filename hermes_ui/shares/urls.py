from django.urls import path

from hermes_ui.shares import public, views
from hermes_ui.web.routes import session_action

urlpatterns = [
    *session_action("share", views.share_new, "share_new"),
    path("shares/", views.share_list, name="share_list"),
    path("shares/<int:pk>/approve/", views.share_approve, name="share_approve"),
    path("shares/<int:pk>/revoke/", views.share_revoke, name="share_revoke"),
    path("s/<str:token>/", public.share_open, name="share_open"),
]
