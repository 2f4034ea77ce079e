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
    roles: dict  # group -> [(endpoint or "*", role, (source, ...))], endpoints not yet checked
    scopes: tuple
    # How often a person's refresh token is used to ask the provider again; 0: never.
    revalidate_minutes: float = 0.0


ALL = "*"


def _endpoint_item(name: str, group: str, item: str, known) -> tuple[str, tuple]:
    """``ep`` or ``ep/src+src`` -> (endpoint, sources); an unknown endpoint names the known."""
    endpoint, slash, listed = item.partition("/")
    endpoint = endpoint.strip() or ALL
    sources = tuple(sorted({s.strip() for s in listed.split("+") if s.strip()}))
    if slash and not sources:
        raise ImproperlyConfigured(
            f"{name}: {item!r} (for {group!r}) has a '/' but no source after it "
            "(write ep/source or ep/source1+source2)"
        )
    for source in sources:
        if len(source) > 200 or not source.isprintable() or "=" in source:
            raise ImproperlyConfigured(f"{name}: {source!r} (for {group!r}) is not a source name")
    if known is not None and endpoint != ALL and endpoint not in known:
        ids = ", ".join(["*", *sorted(known)])
        raise ImproperlyConfigured(
            f"{name}: the endpoint {endpoint!r} (for {group!r}) is not configured (known: {ids})"
        )
    return endpoint, sources


def parse_roles(name: str, value: str, endpoints=None) -> dict:
    """``group=role[@ep[/src+src]][,ep2[/src]]...`` -> {group: [(endpoint, role, sources)]}.

    Today's ``group=role`` means every endpoint (``*``). An item without ``=``
    continues the previous entry's endpoint list (``g=support@eu,eu-cron``);
    sources follow an endpoint after a slash, joined by ``+``. ``endpoints``:
    the configured ids, each named endpoint must be one (None: not checked yet).
    """
    mapping: dict = {}
    seen: set = set()
    group = role = None
    every = False  # the current entry gives every endpoint: nothing may continue it
    for item in (part.strip() for part in (value or "").split(",")):
        if not item:
            continue
        head, at, where = item.partition("@")
        if "=" in head:
            group, _, role = head.rpartition("=")
            role, slash, listed = role.partition("/")
            group, role = group.strip(), role.strip()
            if not group:
                raise ImproperlyConfigured(f"{name}: {item!r} is not group=role")
            if role not in ROLES:
                raise ImproperlyConfigured(
                    f"{name}: {role!r} (for {group!r}) is not one of {', '.join(ROLES)}"
                )
            every = not at
            target = where if at else ALL + slash + listed
        else:
            if group is None:
                raise ImproperlyConfigured(f"{name}: {item!r} is not group=role")
            if every:
                raise ImproperlyConfigured(
                    f"{name}: {item!r} follows {group!r}, which gives every endpoint; "
                    f"to list endpoints write {group}={role}@ep1,ep2"
                )
            target = item
        endpoint, sources = _endpoint_item(name, group, target, endpoints)
        if (group, endpoint) in seen:
            raise ImproperlyConfigured(
                f"{name}: the group {group!r} is mapped twice on {endpoint!r}"
                if endpoint != ALL
                else f"{name}: the group {group!r} is mapped twice"
            )
        seen.add((group, endpoint))
        mapping.setdefault(group, []).append((endpoint, role, sources))
    if not mapping:
        raise ImproperlyConfigured(f"{name} must map at least one group to a role")
    return mapping


def group_roles(value: str | None, endpoints) -> dict:
    """``settings.HERMES_UI_GROUP_ROLES`` from HERMES_UI_OIDC_ROLES, checked against the
    configured endpoints; {} when unset. Read for SSO and SCIM groups alike, so it
    needs no other OIDC variable."""
    if not value or not value.strip():
        return {}
    return parse_roles("HERMES_UI_OIDC_ROLES", value, endpoints)


def oidc_config(
    *,
    issuer: str | None,
    client_id: str | None,
    client_secret: str | None,
    name: str | None,
    role_claim: str | None,
    roles: str | None,
    scopes: list[str],
    revalidate_minutes: float = 0.0,
) -> OidcConfig | None:
    """From the HERMES_UI_OIDC_* values settings read (platform.env); None when none is set.

    HERMES_UI_OIDC_ROLES alone does not turn single sign-on on: SCIM reads the
    same group map (``group_roles``).
    """
    values = {
        "HERMES_UI_OIDC_ISSUER": issuer,
        "HERMES_UI_OIDC_CLIENT_ID": client_id,
        "HERMES_UI_OIDC_CLIENT_SECRET": client_secret,
        "HERMES_UI_OIDC_NAME": name,
        "HERMES_UI_OIDC_ROLE_CLAIM": role_claim,
        "HERMES_UI_OIDC_ROLES": roles,
    }
    given = [variable for variable, value in values.items() if value]
    if not given or given == ["HERMES_UI_OIDC_ROLES"]:
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
    if revalidate_minutes and "offline_access" not in scopes:
        # Without it most providers issue no refresh token, and revalidation needs one.
        scopes = [*scopes, "offline_access"]
    return OidcConfig(
        issuer=issuer,  # type: ignore[arg-type]
        client_id=client_id.strip(),  # type: ignore[union-attr]
        client_secret=client_secret,  # type: ignore[arg-type]
        name=(name or "single sign-on").strip(),
        role_claim=(role_claim or "groups").strip(),
        roles=parse_roles("HERMES_UI_OIDC_ROLES", roles),  # type: ignore[arg-type]
        scopes=tuple(scopes),
        revalidate_minutes=revalidate_minutes,
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


def current() -> OidcConfig:
    """The single sign-on settings, for code that runs only when single sign-on is on."""
    from django.conf import settings

    config = settings.HERMES_UI_OIDC
    if config is None:
        raise ImproperlyConfigured("Single sign-on is off (HERMES_UI_OIDC_ISSUER is not set).")
    return config
