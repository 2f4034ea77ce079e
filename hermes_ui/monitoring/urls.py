from django.urls import path

from hermes_ui.monitoring import views

urlpatterns = [path("metrics", views.metrics, name="metrics")]
