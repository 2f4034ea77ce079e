"""URLs of personal API tokens."""

from django.urls import path

from hermes_ui.api_tokens import views

urlpatterns = [
    path("account/tokens/", views.token_list, name="token_list"),
    path("account/tokens/<int:pk>/revoke/", views.token_revoke, name="token_revoke"),
]
