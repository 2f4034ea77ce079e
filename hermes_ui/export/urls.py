from hermes_ui.export import views
from hermes_ui.web.routes import session_action

urlpatterns = [*session_action("export", views.session_export, "session_export")]
