from django.urls import path

from hermes_ui.live import views

urlpatterns = [
    path("e/<str:endpoint>/live/", views.live_stream, name="live_stream"),
]
