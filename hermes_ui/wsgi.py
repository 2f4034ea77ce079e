"""WSGI entry point: Django's stock handler (``hermes_ui.asgi`` serves it for pages)."""

import os

from django.core.wsgi import get_wsgi_application

from hermes_ui.platform import tracing

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hermes_ui.settings")

tracing.setup()  # before the handler loads the middleware, which holds its span
application = get_wsgi_application()
