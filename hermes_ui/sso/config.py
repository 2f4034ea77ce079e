"""The single sign-on settings: settings.py reads HERMES_UI_OIDC_* (platform.env), this checks.

No Django models here: settings import it before the app registry exists.
"""

from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured

# As in hermes_ui.web.roles (which imports models, so settings cannot): lowest first.
ROLES = ("support", "reviewer", "admin")
# The allauth provider class (hermes_ui.sso.provider) and the one app configured for it:
# its id is in the sign-in URLs (/accounts/oidc/sso/login/) and in every linked identity.
PROVIDER = "hermes_oidc"
PROVIDER_ID = "sso"


@dataclass(frozen=True)
class OidcConfig:
    issuer: str
    client_id: str
    client_secret: str
    name: str
    role_claim: str
    roles: dict  # group -> role
    scopes: tuple


def parse_roles(name: str, value: str) -> dict:
    """``group=role,...`` -> {group: role}; a role outside ROLES or a repeated group is an error."""
    mapping: dict = {}
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        group, sep, role = item.rpartition("=")
        group, role = group.strip(), role.strip()
        if not sep or not group:
            raise ImproperlyConfigured(f"{name}: {item!r} is not group=role")
        if role not in ROLES:
            raise ImproperlyConfigured(
                f"{name}: {role!r} (for {group!r}) is not one of {', '.join(ROLES)}"
            )
        if group in mapping:
            raise ImproperlyConfigured(f"{name}: the group {group!r} is mapped twice")
        mapping[group] = role
    if not mapping:
        raise ImproperlyConfigured(f"{name} must map at least one group to a role")
    return mapping


def oidc_config(
    *,
    issuer: str | None,
    client_id: str | None,
    client_secret: str | None,
    name: str | None,
    role_claim: str | None,
    roles: str | None,
    scopes: list[str],
) -> OidcConfig | None:
    """From the HERMES_UI_OIDC_* values settings read (platform.env); None when none is set."""
    values = {
        "HERMES_UI_OIDC_ISSUER": issuer,
        "HERMES_UI_OIDC_CLIENT_ID": client_id,
        "HERMES_UI_OIDC_CLIENT_SECRET": client_secret,
        "HERMES_UI_OIDC_NAME": name,
        "HERMES_UI_OIDC_ROLE_CLAIM": role_claim,
        "HERMES_UI_OIDC_ROLES": roles,
    }
    given = [variable for variable, value in values.items() if value]
    if not given:
        return None
    required = (
        "HERMES_UI_OIDC_ISSUER",
        "HERMES_UI_OIDC_CLIENT_ID",
        "HERMES_UI_OIDC_CLIENT_SECRET",
        "HERMES_UI_OIDC_ROLES",
    )
    missing = [variable for variable in required if not values[variable]]
    if missing:
        raise ImproperlyConfigured(
            f"Single sign-on needs {', '.join(missing)} (set: {', '.join(given)})"
        )
    if "openid" not in scopes:
        raise ImproperlyConfigured("HERMES_UI_OIDC_SCOPES must include openid")
    return OidcConfig(
        issuer=issuer,  # type: ignore[arg-type]
        client_id=client_id.strip(),  # type: ignore[union-attr]
        client_secret=client_secret,  # type: ignore[arg-type]
        name=(name or "single sign-on").strip(),
        role_claim=(role_claim or "groups").strip(),
        roles=parse_roles("HERMES_UI_OIDC_ROLES", roles),  # type: ignore[arg-type]
        scopes=tuple(scopes),
    )


def allauth_providers(config: OidcConfig | None) -> dict:
    """``SOCIALACCOUNT_PROVIDERS``: one app, PKCE on, nothing from the database."""
    if config is None:
        return {}
    app = {
        "provider_id": PROVIDER_ID,
        "name": config.name,
        "client_id": config.client_id,
        "secret": config.client_secret,
        "settings": {
            "server_url": config.issuer,
            "token_auth_method": "client_secret_basic",
            "oauth_pkce_enabled": True,
            "scope": list(config.scopes),
        },
    }
    return {PROVIDER: {"APPS": [app], "OAUTH_PKCE_ENABLED": True}}
