from django.urls import path

from hermes_ui.web import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    # The login and logout pages: hermes_ui.sso (single sign-on beside the password form).
]
