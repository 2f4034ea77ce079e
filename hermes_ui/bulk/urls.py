from django.urls import path

from hermes_ui.bulk.views import archive, close, delete

urlpatterns = [
    path("e/<str:endpoint>/bulk/close/", close.bulk_close, name="bulk_close"),
    path("e/<str:endpoint>/bulk/delete/", delete.bulk_delete, name="bulk_delete"),
    path("e/<str:endpoint>/bulk/archive/", archive.bulk_archive, name="bulk_archive"),
]
