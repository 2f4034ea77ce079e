"""Every page's Hermes work ends by ``HERMES_PAGE_DEADLINE`` (see ``hermes_ui.hermes.deadline``)."""

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.utils.decorators import sync_and_async_middleware

from hermes_ui.hermes import deadline


@sync_and_async_middleware
def page_deadline(get_response):
    """One budget for all of a page's calls to Hermes, with its browser's *gone* flag.

    Async views (event streams, downloads) keep their own, longer timeouts.
    """
    if iscoroutinefunction(get_response):
        return get_response

    def middleware(request):
        environ = getattr(request, "environ", None)
        if environ is None:
            # Django's ASGI handler (an async view: hermes_ui.asgi) runs this chain in sync
            # mode too, since later middleware is sync only; its request has no WSGI environ.
            return get_response(request)
        gone = environ.get("asgi.scope", {}).get("hermes_ui.gone")
        with deadline.budget(settings.HERMES_PAGE_DEADLINE, gone):
            return get_response(request)

    return middleware
