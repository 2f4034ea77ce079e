"""/account/sso/: an instance admin links a local account to a single sign-on identity.

Never automatic: a first sign-in of an unknown ``sub`` makes a new account,
whatever its e-mail. Linking an existing account is how a person keeps their
history (reviews, notes, audit) when the team moves to single sign-on.
"""

from allauth.socialaccount.models import SocialAccount
from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.sso.config import PROVIDER_ID
from hermes_ui.web.roles import instance_admin_required


class LinkForm(forms.Form):
    username = forms.CharField(label="Dashboard account", max_length=150)
    subject = forms.CharField(
        label="Subject (sub) at the identity provider",
        max_length=191,  # allauth's SocialAccount.uid
        help_text="The person's stable id at the provider, not their e-mail.",
    )

    def clean_username(self):
        name = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username=name).first()
        if user is None:
            raise forms.ValidationError("There is no account with that username.")
        if user.is_superuser:
            # A superuser is admin whatever its groups: the provider could never demote it.
            raise forms.ValidationError("A superuser stays a local (break-glass) account.")
        if SocialAccount.objects.filter(user=user, provider=PROVIDER_ID).exists():
            raise forms.ValidationError("That account is already linked; unlink it first.")
        return user

    def clean_subject(self):
        subject = self.cleaned_data["subject"].strip()
        if not subject:
            raise forms.ValidationError("Give the subject.")
        if SocialAccount.objects.filter(provider=PROVIDER_ID, uid=subject).exists():
            raise forms.ValidationError("That identity is already linked to an account.")
        return subject


@instance_admin_required
@require_http_methods(["GET", "POST"])
def links_page(request):
    form = LinkForm()
    if request.method == "POST":
        if request.POST.get("action") == "unlink":
            _unlink(request)
            return redirect("sso_links")
        form = LinkForm(request.POST)
        if form.is_valid():
            user, subject = form.cleaned_data["username"], form.cleaned_data["subject"]
            SocialAccount.objects.create(user=user, provider=PROVIDER_ID, uid=subject)
            _audit(request, "auth.sso_linked", subject, user)
            messages.success(request, f"{user.get_username()} is linked to {subject}.")
            return redirect("sso_links")
    linked = (
        SocialAccount.objects.filter(provider=PROVIDER_ID)
        .select_related("user")
        .order_by("user__username")
    )
    context = {"form": form, "linked": linked, "configured": settings.HERMES_UI_OIDC is not None}
    return render(request, "sso/links.html", context, status=400 if form.errors else 200)


def _unlink(request) -> None:
    account = (
        SocialAccount.objects.filter(
            provider=PROVIDER_ID, pk=request.POST.get("account", "")
        ).first()
        if request.POST.get("account", "").isdigit()
        else None
    )
    if account is None:
        messages.error(request, "That link no longer exists.")
        return
    user, subject = account.user, account.uid
    account.delete()
    _audit(request, "auth.sso_unlinked", subject, user)
    messages.success(request, f"{user.get_username()} is no longer linked to {subject}.")


def _audit(request, capability, subject, user) -> None:
    record(
        request.user,
        capability=capability,
        endpoint="",
        outcome=Outcome.SUCCESS,
        evidence={"subject": subject, "account": user.get_username()},
    )
