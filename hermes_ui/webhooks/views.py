"""``/webhooks/`` (admins): the webhooks, each one's delivery log, a test event, redelivery."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.web.roles import instance_admin_required
from hermes_ui.webhooks import outbox
from hermes_ui.webhooks.forms import WebhookForm
from hermes_ui.webhooks.models import Delivery, Webhook

LOG_ROWS = 50


@require_http_methods(["GET", "POST"])
@instance_admin_required
def webhook_list(request: HttpRequest) -> HttpResponse:
    form = WebhookForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        secret = form.new_secret()
        hook = Webhook.objects.create(
            url=form.cleaned_data["url"],
            secret=secret,
            events=form.cleaned_data["events"],
            active=form.cleaned_data["active"],
            created_by_name=request.user.get_username(),
        )
        _audit(request.user, "webhooks.create", hook)
        if not form.cleaned_data["secret"]:
            request.session["webhook_secret_once"] = [hook.pk, secret]
        messages.success(request, f"Webhook #{hook.pk} added.")
        return redirect("webhook_detail", pk=hook.pk)
    hooks = Webhook.objects.all()
    return render(
        request,
        "webhooks/list.html",
        {"form": form, "hooks": hooks},
        status=400 if form.errors else 200,
    )


@never_cache  # shows a generated secret once: no cache may keep a copy
@require_http_methods(["GET", "POST"])
@instance_admin_required
def webhook_detail(request: HttpRequest, pk) -> HttpResponse:
    hook = get_object_or_404(Webhook, pk=pk)
    initial = {"url": hook.url, "events": hook.events, "active": hook.active}
    form = WebhookForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        hook.url, hook.events = form.cleaned_data["url"], form.cleaned_data["events"]
        if form.cleaned_data["active"] and not hook.active:
            hook.failing_since, hook.disabled_reason = None, ""
        hook.active = form.cleaned_data["active"]
        if form.cleaned_data["secret"]:
            hook.secret = form.cleaned_data["secret"]
        hook.save()
        _audit(request.user, "webhooks.edit", hook)
        messages.success(request, f"Webhook #{hook.pk} saved.")
        return redirect("webhook_detail", pk=hook.pk)
    once = request.session.pop("webhook_secret_once", None)
    secret = once[1] if once and once[0] == hook.pk else None
    deliveries = list(hook.deliveries.prefetch_related("log")[:LOG_ROWS])
    return render(
        request,
        "webhooks/detail.html",
        {"hook": hook, "form": form, "deliveries": deliveries, "secret_once": secret},
        status=400 if form.errors else 200,
    )


@require_POST
@instance_admin_required
def webhook_ping(request: HttpRequest, pk) -> HttpResponse:
    hook = get_object_or_404(Webhook, pk=pk)
    delivery = outbox.ping(hook)
    _audit(request.user, "webhooks.ping", hook)
    messages.success(request, f"Test event queued (delivery {delivery.pk}).")
    return redirect("webhook_detail", pk=hook.pk)


@require_POST
@instance_admin_required
def webhook_redeliver(request: HttpRequest, pk, delivery) -> HttpResponse:
    hook = get_object_or_404(Webhook, pk=pk)
    found = get_object_or_404(Delivery, pk=delivery, webhook=hook)
    outbox.redeliver(found)
    _audit(request.user, "webhooks.redeliver", hook)
    messages.success(request, f"Delivery {found.pk} queued again.")
    return redirect("webhook_detail", pk=hook.pk)


@require_POST
@instance_admin_required
def webhook_delete(request: HttpRequest, pk) -> HttpResponse:
    hook = get_object_or_404(Webhook, pk=pk)
    _audit(request.user, "webhooks.delete", hook)
    hook.delete()
    messages.success(request, f"Webhook #{pk} deleted.")
    return redirect("webhook_list")


def _audit(user, capability: str, hook: Webhook) -> None:
    record(
        user,
        capability=capability,
        endpoint="",
        outcome=Outcome.SUCCESS,
        evidence={"webhook_id": hook.pk, "events": len(hook.events)},
    )
