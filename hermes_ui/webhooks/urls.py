"""URLs of the webhooks (admins)."""

from django.urls import path

from hermes_ui.webhooks import views

urlpatterns = [
    path("webhooks/", views.webhook_list, name="webhook_list"),
    path("webhooks/<int:pk>/", views.webhook_detail, name="webhook_detail"),
    path("webhooks/<int:pk>/ping/", views.webhook_ping, name="webhook_ping"),
    path("webhooks/<int:pk>/delete/", views.webhook_delete, name="webhook_delete"),
    path(
        "webhooks/<int:pk>/deliveries/<uuid:delivery>/redeliver/",
        views.webhook_redeliver,
        name="webhook_redeliver",
    ),
]
