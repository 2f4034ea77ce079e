from django.urls import path

from hermes_ui.compare import views

urlpatterns = [
    path("e/<str:endpoint>/compare/", views.compare, name="compare"),
    path("e/<str:endpoint>/compare/verdict/", views.record_verdict, name="compare_verdict"),
    path("e/<str:endpoint>/compare/to-review/", views.to_review, name="compare_to_review"),
]
