"""``/account/notifications/``: what each person is mailed; ``/notifications/mail/`` (admins):
mails that failed or are still retrying."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from hermes_ui.notifications import preferences
from hermes_ui.notifications.forms import PreferencesForm
from hermes_ui.notifications.models import Mail
from hermes_ui.web.roles import instance_admin_required

MAIL_ROWS = 100


@require_http_methods(["GET", "POST"])
def notification_preferences(request: HttpRequest) -> HttpResponse:
    modes = preferences.modes(request.user)
    form = PreferencesForm(request.POST or None, modes=modes)
    if request.method == "POST" and form.is_valid():
        preferences.save(request.user, form.cleaned_data)
        messages.success(request, "Notification preferences saved.")
        return redirect("notification_preferences")
    return render(
        request,
        "notifications/preferences.html",
        {"form": form, "has_address": bool(request.user.email)},  # type: ignore[union-attr]
        status=400 if form.errors else 200,
    )


@require_GET
@instance_admin_required
def mail_failures(request: HttpRequest) -> HttpResponse:
    rows = (
        Mail.objects.exclude(last_error="")
        .exclude(state=Mail.SENT)
        .select_related("user")[:MAIL_ROWS]
    )
    return render(request, "notifications/mail.html", {"rows": rows})
