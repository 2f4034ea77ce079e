"""``/s/<token>/``: the shared snapshot, the one page a person without an account may open.

Every answer (200, 404, 410) is kept out of search engines, caches and referrers.
A link that may not be opened by this person (an inside link without a sign-in
or sight of its session, an outside link not yet approved) answers the very
bytes of an unknown token, so a 404 never tells whether a link exists.
"""

from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET

from hermes_ui.shares import links, snapshot

_PRIVATE_HEADERS = {
    "X-Robots-Tag": "noindex, nofollow, noarchive",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


@login_not_required
@require_GET
def share_open(request, token: str) -> HttpResponse:
    share = links.find(token)
    if share is None or not links.may_open(request.user, share):
        return _plain("shares/public_404.html", {}, 404)
    reason = links.gone_reason(share)
    if reason is None and not links.count_view(share, request.user, _client(request)):
        reason = links.gone_reason(share) or "This link is no longer available."
    if reason is not None:
        return _plain("shares/public_410.html", {"reason": reason}, 410)
    context = {"share": share, "messages": snapshot.shown(share.snapshot)}
    return _plain("shares/public.html", context, 200)


def _client(request) -> str:
    # REMOTE_ADDR is the client's behind the configured proxy (settings: forwarded headers).
    return request.META.get("REMOTE_ADDR") or ""


def _plain(template: str, context: dict, status: int) -> HttpResponse:
    # No request: nothing of the visitor (CSRF token, user name) is in the page.
    response = HttpResponse(render_to_string(template, context), status=status)
    for name, value in _PRIVATE_HEADERS.items():
        response[name] = value
    return response
