from hermes_ui.lineage import views
from hermes_ui.web.routes import session_action

urlpatterns = [
    *session_action("lineage", views.lineage_page, "lineage_page"),
    *session_action("lineage-panel", views.lineage_panel, "lineage_panel"),
]
