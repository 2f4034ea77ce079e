"""``GET /metrics``: the Prometheus text format, for a scraper holding the token."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from hermes_ui.monitoring.collector import DatabaseCollector
from hermes_ui.platform import metrics as pushed

_DATABASE = CollectorRegistry()
_DATABASE.register(DatabaseCollector())


@login_not_required
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """404 unless ``HERMES_UI_METRICS_TOKEN`` is set; 401 without that Bearer token."""
    token = settings.HERMES_UI_METRICS_TOKEN
    if not token:
        raise Http404("metrics are off")
    given = request.headers.get("Authorization", "").encode()
    if not hmac.compare_digest(given, f"Bearer {token}".encode()):
        answer = HttpResponse("a Bearer token is needed\n", status=401, content_type="text/plain")
        answer["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return answer
    answer = HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
    answer["Cache-Control"] = "no-store"
    return answer


def exposition() -> bytes:
    """Every process's pushed series (added up) and the database's, in the text format."""
    if pushed.directory() is None:
        return generate_latest(REGISTRY) + generate_latest(_DATABASE)
    pushed.forget_dead_processes()
    registry = CollectorRegistry()
    MultiProcessCollector(registry)
    return generate_latest(registry) + generate_latest(_DATABASE)
