"""``manage.py export_openapi_schema --api hermes_ui.api.main.api``: django-ninja's own
command, listed here because "ninja" is no installed app (see the settings)."""

from ninja.management.commands.export_openapi_schema import Command

__all__ = ["Command"]
