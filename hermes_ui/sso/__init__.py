"""Single sign-on with OpenID Connect (django-allauth), and the login and logout pages.

The identity provider says who someone is (``sub``) and which groups they are
in; the groups become the person's ``sso`` memberships at every sign-in and
revalidation (``groups``, ``revalidation``), and ``HERMES_UI_OIDC_ROLES`` says
what each group gives, per endpoint and source. A back-channel logout from the
provider ends their sessions (``backchannel``). See docs/admins/single-sign-on.md.
"""
