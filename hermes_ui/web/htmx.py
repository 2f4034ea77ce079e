"""The request of a view that reads ``request.htmx`` (set by django-htmx's middleware)."""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails
