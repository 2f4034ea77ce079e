"""URLs of saved views."""

from django.urls import path

from hermes_ui.saved_views.views import manage, save

urlpatterns = [
    path("e/<str:endpoint>/views/", manage.view_list, name="view_list"),
    path("e/<str:endpoint>/views/save/", save.view_save, name="view_save"),
    path("e/<str:endpoint>/views/default/", manage.view_default, name="view_default"),
    path("e/<str:endpoint>/views/<int:pk>/", manage.view_edit, name="view_edit"),
    path("e/<str:endpoint>/views/<int:pk>/delete/", manage.view_delete, name="view_delete"),
]
