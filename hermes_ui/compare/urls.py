from django.urls import path

from hermes_ui.compare import panel_view, views
from hermes_ui.web.routes import session_action

urlpatterns = [
    path("e/<str:endpoint>/compare/", views.compare, name="compare"),
    path("e/<str:endpoint>/compare/verdict/", views.record_verdict, name="compare_verdict"),
    path("e/<str:endpoint>/compare/to-review/", views.to_review, name="compare_to_review"),
    *session_action("compare-panel", panel_view.session_panel, "compare_panel"),
]
