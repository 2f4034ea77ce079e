"""Routes of the lineage feature, included before the catch-all session route.

The panel route comes before the page route: a session id may itself end in
"/lineage", and the longer suffix must win.
"""

from django.urls import path

from hermes_ui.views import index_search, lineage

urlpatterns = [
    path("e/<str:endpoint>/index/", index_search.index_list, name="index_list"),
    path("e/<str:endpoint>/index/refresh/", index_search.index_refresh, name="index_refresh"),
    path("e/<str:endpoint>/index/status/", index_search.index_status, name="index_status"),
    path(
        "e/<str:endpoint>/sessions/<path:session_id>/lineage/panel/",
        lineage.lineage_panel,
        name="lineage_panel",
    ),
    path(
        "e/<str:endpoint>/sessions/<path:session_id>/lineage/",
        lineage.lineage_page,
        name="lineage_page",
    ),
]
