"""WSGI entry point: Django's stock handler (``hermes_ui.asgi`` serves it for pages)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hermes_ui.settings")

application = get_wsgi_application()
