from django.urls import path

from hermes_ui.compare.views import compare, panel
from hermes_ui.web.routes import session_action

urlpatterns = [
    path("e/<str:endpoint>/compare/", compare.compare, name="compare"),
    path("e/<str:endpoint>/compare/verdict/", compare.record_verdict, name="compare_verdict"),
    path("e/<str:endpoint>/compare/to-review/", compare.to_review, name="compare_to_review"),
    *session_action("compare-panel", panel.session_panel, "compare_panel"),
]
