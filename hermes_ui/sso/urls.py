from django.urls import path

from hermes_ui.sso import backchannel, links, views
from hermes_ui.sso.config import PROVIDER

urlpatterns = [
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    path("accounts/oidc/<str:provider_id>/login/", views.oidc_login, name=f"{PROVIDER}_login"),
    path(
        "accounts/oidc/<str:provider_id>/login/callback/",
        views.oidc_callback,
        name=f"{PROVIDER}_callback",
    ),
    # Server to server, from the provider (OpenID Connect Back-Channel Logout 1.0).
    path(
        "accounts/oidc/backchannel-logout/",
        backchannel.backchannel_logout,
        name="sso_backchannel_logout",
    ),
    path(
        "accounts/break-glass/<str:uid>/<str:token>/",
        views.break_glass_login,
        name="sso_break_glass",
    ),
    # Names allauth reverses on paths this dashboard never takes; a clear page, not a 500.
    path("accounts/signup/", views.not_here, name="account_signup"),
    path("accounts/social/signup/", views.not_here, name="socialaccount_signup"),
    path("accounts/inactive/", views.not_here, name="account_inactive"),
    path("account/sso/", links.links_page, name="sso_links"),
]
