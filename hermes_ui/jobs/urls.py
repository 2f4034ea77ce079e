from django.urls import path

from hermes_ui.jobs import views

urlpatterns = [
    path("jobs/<int:pk>/", views.job_page, name="job"),
]
