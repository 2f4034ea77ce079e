"""ASGI entry point: uvicorn serves it so chat streams flow while pages load."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hermes_ui.settings")
application = get_asgi_application()
