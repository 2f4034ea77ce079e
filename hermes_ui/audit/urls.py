from django.urls import path

from hermes_ui.audit import views

urlpatterns = [
    path("audit/", views.audit_log, name="audit_log"),
]
