"""URLs of the usage feature."""

from django.urls import path

from hermes_ui.usage import views

urlpatterns = [
    path("e/<str:endpoint>/usage/", views.usage_page, name="usage"),
    path("usage/", views.usage_all, name="usage_all"),
]
