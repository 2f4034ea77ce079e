"""The root URL table only includes features; each feature owns its routes.

Session-scoped actions are ``/e/<endpoint>/<action>/<path:id>/`` (see
``hermes_ui.web.routes``), so the order of these includes does not matter.
"""

from django.urls import include, path

FEATURES = (
    "web",
    "sessions",
    "lineage",
    "search",
    "changes",
    "chat",
    "deletion",
    "audit",
    "compare",
    "export",
    "endpoint_status",
    "bulk",
    "background.jobs",
    "review",
    "usage",
    "tags",
    "saved_views",
    "watermarks",
    "sso",
    "access",
    "api_tokens",
    "api",
    "notifications",
    "webhooks",
    "retention",
    "live",
    "monitoring",
    "scim",
    "shares",
)

urlpatterns = [path("", include(f"hermes_ui.{feature}.urls")) for feature in FEATURES]

handler403 = "hermes_ui.web.errors.forbidden"
handler404 = "hermes_ui.web.errors.not_found"
handler500 = "hermes_ui.web.errors.server_error"
