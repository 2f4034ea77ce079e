"""django-allauth's hooks: no local signup, and roles from the provider at every sign-in.

``sub`` (allauth's ``uid``) is the identity; e-mail and name fill the account's
fields and are never used to find an account (no linking by e-mail: that is
``SOCIALACCOUNT_EMAIL_AUTHENTICATION = False`` in settings, and an admin links
on /account/sso/).
"""

from allauth.account.adapter import DefaultAccountAdapter
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.providers.base import AuthProcess
from django.conf import settings
from django.contrib.auth.models import Group

from hermes_ui.sso.claims import groups_of, mapped_role
from hermes_ui.sso.refusal import refuse
from hermes_ui.web.roles import ROLES, set_role

# django-axes' backend cannot load a user for the session (its get_user answers None),
# and allauth would otherwise pick the first backend: the session would not hold.
SESSION_BACKEND = "hermes_ui.web.auth_backend.ModelBackend"


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request) -> bool:
        return False  # accounts come from create_user or from a single sign-on

    def login(self, request, user) -> None:
        if not hasattr(user, "backend"):
            user.backend = SESSION_BACKEND
        super().login(request, user)


def provider_claims(sociallogin) -> dict:
    """The ID token's claims, with userinfo's on top (the provider adapter checked that
    both are about the same ``sub``)."""
    data = sociallogin.account.extra_data or {}
    return {**data.get("id_token", {}), **data.get("userinfo", {})}


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request, sociallogin) -> bool:
        return True  # only here: a first sign-in creates the account (after pre_social_login)

    def is_auto_signup_allowed(self, request, sociallogin) -> bool:
        return True  # never allauth's signup form

    def pre_social_login(self, request, sociallogin) -> None:
        config = settings.HERMES_UI_OIDC
        subject = sociallogin.account.uid
        user = sociallogin.user if sociallogin.is_existing else None
        if sociallogin.state.get("process") != AuthProcess.LOGIN:
            refuse(request, "link_only", subject=subject, user=user)
        if user is not None and not user.is_active:
            refuse(request, "inactive", subject=subject, user=user)
        role = mapped_role(groups_of(provider_claims(sociallogin), config.role_claim), config.roles)  # type: ignore[union-attr]
        if role is None:
            if user is not None:
                # Out of every mapped group: the role goes now, not at some later sign-in.
                user.groups.remove(*Group.objects.filter(name__in=ROLES))
            refuse(request, "no_role", subject=subject, user=user)
        sociallogin.hermes_role = role
        if user is not None:
            set_role(user, role)  # type: ignore[arg-type]

    def save_user(self, request, sociallogin, form=None):
        user = super().save_user(request, sociallogin, form)
        set_role(user, sociallogin.hermes_role)
        return user

    def on_authentication_error(
        self, request, provider, error=None, exception=None, extra_context=None
    ) -> None:
        # Tampered or replayed state, a code the provider refuses, a wrong nonce,
        # issuer or signature, the provider unreachable, or the person cancelled:
        # one clear page, and the reason (never a token) in the audit trail.
        detail = type(exception).__name__ if exception is not None else str(error or "")
        refuse(request, "failed", detail=detail)
