from django.urls import path

from hermes_ui.search import views

urlpatterns = [
    path("e/<str:endpoint>/index/", views.index_moved, name="index_moved"),
    path("e/<str:endpoint>/index/refresh/", views.index_refresh, name="index_refresh"),
    path("e/<str:endpoint>/index/status/", views.index_status, name="index_status"),
]
