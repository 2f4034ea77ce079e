from django.urls import path

from hermes_ui.endpoint_status import views

urlpatterns = [
    path("endpoints/", views.endpoint_list, name="endpoint_list"),
    path("endpoints/probe/", views.endpoint_probe, name="endpoint_probe"),
]
