from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from hermes_ui.endpoints import all_endpoints
from hermes_ui.web.links import list_url


@require_GET
def home(request):
    """The default endpoint's session list, or a setup page when none is configured."""
    if settings.HERMES_ENDPOINT_ID in settings.HERMES_ENDPOINTS:
        return redirect(list_url(settings.HERMES_ENDPOINT_ID))
    if all_endpoints():
        return redirect(list_url(all_endpoints()[0].id))
    return render(request, "no_endpoint.html", status=503)


@login_not_required
@require_GET
def healthz(request):
    return HttpResponse("ok", content_type="text/plain")
