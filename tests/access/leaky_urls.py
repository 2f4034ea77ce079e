"""The dashboard's URL table plus two routes that forget the rule, for the walk's own test."""

from django.http import HttpResponse
from django.urls import path

from hermes_ui.index.models import IndexedSession
from hermes_ui.urls import urlpatterns as dashboard


def titles(request):
    """Every indexed session, whoever asks: what a new cross-endpoint page could forget."""
    rows = IndexedSession.objects.values_list("session_id", "title")
    return HttpResponse("\n".join(f"{sid} {title}" for sid, title in rows))


def session(request, ep, session_id):
    """A session route naming its endpoint ``ep``: the door (which reads ``endpoint``)
    never sees it, so only the walk's kwarg table stands in its way."""
    return HttpResponse(f"{ep} {session_id}")


urlpatterns = [
    path("leaky/", titles, name="leaky_titles"),
    path("leaky/<str:ep>/s/<path:session_id>/", session, name="leaky_session"),
    *dashboard,
]
