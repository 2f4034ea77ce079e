"""/scim/v2/: RFC 7644 §3.2's endpoints.

``users``, ``groups``, ``resource-types`` and ``service-provider-config`` are
the names django-scim2 reverses (as ``scim:<name>``); the rest carry a
``scim-`` prefix so no other feature's URL name is mistaken for them.
"""

from django.urls import re_path

from hermes_ui.scim import views

app_name = "scim"

urlpatterns = [
    re_path(r"^scim/v2/$", views.not_implemented, name="scim-root"),
    re_path(r"^scim/v2/Users/\.search$", views.users_search, name="scim-users-search"),
    re_path(r"^scim/v2/Users(?:/(?P<uuid>[^/]+))?$", views.users, name="users"),
    re_path(r"^scim/v2/Groups/\.search$", views.groups_search, name="scim-groups-search"),
    re_path(r"^scim/v2/Groups(?:/(?P<uuid>[^/]+))?$", views.groups, name="groups"),
    re_path(r"^scim/v2/Me$", views.not_implemented, name="scim-me"),
    re_path(r"^scim/v2/Bulk$", views.not_implemented, name="scim-bulk"),
    re_path(
        r"^scim/v2/ServiceProviderConfig$",
        views.service_provider_config,
        name="service-provider-config",
    ),
    re_path(
        r"^scim/v2/ResourceTypes(?:/(?P<uuid>[^/]+))?$", views.resource_types, name="resource-types"
    ),
    re_path(r"^scim/v2/Schemas(?:/(?P<uuid>[^/]+))?$", views.schemas, name="scim-schemas"),
]
