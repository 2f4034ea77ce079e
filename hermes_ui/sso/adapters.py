"""django-allauth's hooks: no local signup, and groups from the provider at every sign-in.

The claimed groups become the person's ``sso`` memberships (hermes_ui.sso.groups);
what they give is decided by hermes_ui.access.rules, at each request.

``sub`` (allauth's ``uid``) is the identity; e-mail and name fill the account's
fields and are never used to find an account (no linking by e-mail: that is
``SOCIALACCOUNT_EMAIL_AUTHENTICATION = False`` in settings, and an admin links
on /account/sso/).
"""

from allauth.account.adapter import DefaultAccountAdapter
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.providers.base import AuthProcess
from django.conf import settings

from hermes_ui.access.rules import access_of
from hermes_ui.sso import groups as idp_groups
from hermes_ui.sso.claims import groups_of
from hermes_ui.sso.refusal import refuse

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
        claimed = groups_of(provider_claims(sociallogin), config.role_claim)  # type: ignore[union-attr]
        sociallogin.hermes_groups = claimed
        if user is None:
            # No account yet: refused before one is made when the groups give nothing.
            access = idp_groups.access_from(claimed)
            if access.highest() is None:
                refuse(request, "no_role", subject=subject)
            sociallogin.hermes_access = access
            return
        # The groups replace the last sign-in's at once, whatever happens next.
        idp_groups.apply(user, claimed)
        access = access_of(user)
        if access.highest() is None:
            # Nothing left (no mapped group, no local grant): what the provider gave goes now.
            idp_groups.remove(user)
            refuse(request, "no_role", subject=subject, user=user)
        sociallogin.hermes_access = access

    def save_user(self, request, sociallogin, form=None):
        user = super().save_user(request, sociallogin, form)
        idp_groups.apply(user, getattr(sociallogin, "hermes_groups", []))
        sociallogin.hermes_access = access_of(user)
        return user

    def on_authentication_error(
        self, request, provider, error=None, exception=None, extra_context=None
    ) -> None:
        # Tampered or replayed state, a code the provider refuses, a wrong nonce,
        # issuer or signature, the provider unreachable, or the person cancelled:
        # one clear page, and the reason (never a token) in the audit trail.
        detail = type(exception).__name__ if exception is not None else str(error or "")
        refuse(request, "failed", detail=detail)
