"""URLs of retention."""

from django.urls import path

from hermes_ui.retention import views

urlpatterns = [
    path("retention/", views.overview, name="retention"),
    path("retention/keep-tags/", views.keep_tags, name="retention_keep_tags"),
    path("e/<str:endpoint>/retention/", views.endpoint_rules, name="retention_rules"),
    path("e/<str:endpoint>/retention/<int:rule>/", views.rule_page, name="retention_rule"),
    path(
        "e/<str:endpoint>/retention/<int:rule>/preview/",
        views.preview,
        name="retention_preview",
    ),
    path("e/<str:endpoint>/retention/<int:rule>/run/", views.run_now, name="retention_run_now"),
    path("e/<str:endpoint>/retention/runs/<int:run>/", views.run_page, name="retention_run"),
]
