from django.urls import path

from hermes_ui.background.jobs import views

urlpatterns = [
    path("jobs/<int:pk>/", views.job_page, name="job"),
]
