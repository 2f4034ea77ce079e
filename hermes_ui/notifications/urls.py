"""URLs of the notifications."""

from django.urls import path

from hermes_ui.notifications import views

urlpatterns = [
    path(
        "account/notifications/",
        views.notification_preferences,
        name="notification_preferences",
    ),
    path("notifications/mail/", views.mail_failures, name="notification_mail"),
]
