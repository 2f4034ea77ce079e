"""``{% load static_urls %}``: Django's ``{% static %}`` with each file's URL worked out once.

Django's ``{% static %}`` asks ``apps.is_installed`` (a walk over every app)
and the storage for each tag on each page; the session page has a dozen. The
answer for one path only changes with the static settings, so it is kept
until they change (tests override them). The project's templates load this
library instead of Django's ``static``; the tags are the same.
"""

from functools import lru_cache

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.templatetags import static as django_static

register = template.Library()
register.tag("get_static_prefix", django_static.get_static_prefix)
register.tag("get_media_prefix", django_static.get_media_prefix)


@lru_cache(maxsize=1024)
def static(path: str) -> str:
    """A static file's URL, as Django's ``static()`` (for Python code that draws HTML)."""
    return django_static.StaticNode.handle_simple(path)


class StaticNode(django_static.StaticNode):
    @classmethod
    def handle_simple(cls, path):
        return static(path)


@register.tag("static")
def do_static(parser, token):
    """``{% static "path" [as name] %}``, as Django's."""
    return StaticNode.handle_token(parser, token)


@receiver(setting_changed)
def _forget(*, setting, **kwargs):
    if setting in {"STATIC_URL", "STATIC_ROOT", "STORAGES", "INSTALLED_APPS"}:
        static.cache_clear()
