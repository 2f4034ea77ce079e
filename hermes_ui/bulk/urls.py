from django.urls import path

from hermes_ui.bulk.views import close, delete

urlpatterns = [
    path("e/<str:endpoint>/bulk/close/", close.bulk_close, name="bulk_close"),
    path("e/<str:endpoint>/bulk/delete/", delete.bulk_delete, name="bulk_delete"),
]
