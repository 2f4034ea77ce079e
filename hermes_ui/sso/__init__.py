"""Single sign-on with OpenID Connect (django-allauth), and the login and logout pages.

The identity provider says who someone is (``sub``) and which groups they are
in; ``HERMES_UI_OIDC_ROLES`` turns a group into a dashboard role at every
sign-in. See docs/single-sign-on.md.
"""
