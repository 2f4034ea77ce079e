import re
import sqlite3

import pytest

from tests.sso.oidc import OidcProvider


@pytest.fixture(scope="session")
def sso_dashboard(tmp_path_factory, hermes_peer):
    """The dashboard under uvicorn with single sign-on against a real oidc-provider."""
    from tests.support.browser import DashboardServer

    folder = tmp_path_factory.mktemp("sso")
    server = DashboardServer(folder / "ui-data", hermes_peer)
    server.data_dir.mkdir()
    provider = OidcProvider(
        folder,
        redirect_uri=server.base_url + "/accounts/oidc/sso/login/callback/",
        post_logout_uri=server.base_url + "/accounts/login/",
        backchannel_uri=server.base_url + "/accounts/oidc/backchannel-logout/",
    ).start()
    server.env.update(provider.dashboard_env())
    server.start()
    server.oidc = provider
    yield server
    server.stop()
    provider.stop()


@pytest.fixture
def oidc(sso_dashboard):
    """The provider, with every user's groups and the token lever as they started."""
    from tests.sso.oidc import USERS

    yield sso_dashboard.oidc
    for sub, user in USERS.items():
        sso_dashboard.oidc.set_groups(sub, user["groups"])
        sso_dashboard.oidc.set_disabled(sub, False)
    sso_dashboard.oidc.tamper(None)


@pytest.fixture
def sso_page(chromium, sso_dashboard):
    """A tab that reaches only loopback (the provider's own pages ask for a web font)."""
    from tests.support.browser import assert_no_csp_violations, watched_context

    context = watched_context(chromium, viewport={"width": 1200, "height": 800})
    context.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort())
    tab = context.new_page()
    yield tab
    context.close()
    assert_no_csp_violations(context)


class DashboardDatabase:
    """The server's SQLite, read with the standard library: browser tests run after
    Playwright has left an event loop in this thread, where Django's ORM refuses to run."""

    def __init__(self, server):
        self.path = server.data_dir / "hermes_ui.sqlite3"

    def rows(self, sql: str, *params):
        with sqlite3.connect(self.path) as db:
            return db.execute(sql, params).fetchall()

    def user(self, username: str):
        rows = self.rows("SELECT id, is_active FROM auth_user WHERE username = ?", username)
        return rows[0] if rows else None

    def roles(self, username: str) -> list[str]:
        """The roles the person holds on every endpoint (``*``): their own grants and
        their SSO groups' through the test's HERMES_UI_OIDC_ROLES, highest kept."""
        from tests.sso.oidc import ROLES

        mapped = dict(item.split("=") for item in ROLES.split(","))
        own = self.rows(
            "SELECT gr.role FROM access_grant gr JOIN auth_user u ON u.id = gr.user_id "
            "WHERE u.username = ? AND gr.endpoint = '*'",
            username,
        )
        groups = self.groups(username)
        found = {role for (role,) in own} | {mapped[g] for g in groups if g in mapped}
        order = ["support", "reviewer", "admin"]
        return [max(found, key=order.index)] if found else []

    def groups(self, username: str) -> list[str]:
        """The person's memberships of origin sso (what the provider last said)."""
        return [
            name
            for (name,) in self.rows(
                "SELECT g.name FROM access_idpgroup g JOIN access_membership m "
                "ON m.group_id = g.id JOIN auth_user u ON u.id = m.user_id "
                "WHERE u.username = ? AND m.origin = 'sso' ORDER BY g.name",
                username,
            )
        ]

    def audit(self, capability: str):
        return self.rows(
            "SELECT username, outcome, error_code, evidence FROM audit_auditevent "
            "WHERE capability = ? ORDER BY id",
            capability,
        )


@pytest.fixture
def sso_db(sso_dashboard):
    return DashboardDatabase(sso_dashboard)
