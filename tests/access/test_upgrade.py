"""The upgrade guarantee: today's global roles become grants on *, and nobody's role changes.

Runs the real migrations on a test database: before issue 48 a role was the
highest of the Django groups support/reviewer/admin a person was in.
"""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from hermes_ui.access.rules import access_of

BEFORE = [("access", "0001_initial")]
AFTER = [("access", "0002_global_roles_become_grants")]
ROLES = ("support", "reviewer", "admin")

# username -> (Django groups before the upgrade, linked to single sign-on)
PEOPLE = {
    "ana": (["admin"], False),
    "rita": (["support", "reviewer"], False),  # the highest group was the role
    "sam": (["support"], True),
    "boss": (["admin", "support"], True),
    "newbie": ([], False),  # no group: no role before, none after
}


def _migrate(targets):
    """Migrate to ``targets``; the models as they are then (every other app at its latest)."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    others = [n for n in executor.loader.graph.leaf_nodes() if n[0] != "access"]
    return executor.loader.project_state(others + targets).apps


def _role_before(groups):
    return max(groups, key=ROLES.index) if groups else None


def test_every_person_keeps_exactly_their_role_on_every_endpoint_and_back(
    transactional_db, settings
):
    from django.contrib.auth import get_user_model

    from hermes_ui.platform.endpoints import Endpoint
    from tests.conftest import TEST_KEY

    settings.HERMES_ENDPOINTS = {
        ep: Endpoint(ep, f"http://{ep}.test", TEST_KEY) for ep in ("eu", "us", "apac")
    }
    old = _migrate(BEFORE)
    try:
        Group = old.get_model("auth", "Group")
        User = old.get_model("auth", "User")
        Grant = old.get_model("access", "Grant")
        Linked = old.get_model("socialaccount", "SocialAccount")
        # (Unapplying the migration made the three groups again, empty.)
        groups = {name: Group.objects.get_or_create(name=name)[0] for name in ROLES}
        assert not User.objects.exists()
        Group.objects.create(name="unrelated").user_set.add(
            User.objects.create(username="outsider")
        )
        for name, (member_of, sso) in PEOPLE.items():
            user = User.objects.create(username=name)
            for group in member_of:
                groups[group].user_set.add(user)
            if sso:
                Linked.objects.create(user=user, provider="oidc", uid=f"sub-{name}")
        assert not Grant.objects.exists()

        new = _migrate(AFTER)
        NewGrant = new.get_model("access", "Grant")
        rows = {
            g.user.username: (g.endpoint, g.role, g.sources, g.origin)
            for g in NewGrant.objects.select_related("user")
        }
        assert rows == {
            name: ("*", _role_before(member_of), [], "sso" if sso else "local")
            for name, (member_of, sso) in PEOPLE.items()
            if member_of
        }
        assert not new.get_model("auth", "Group").objects.filter(name__in=ROLES).exists()

        # The one rule, on the real models: the same role on every endpoint as before.
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
        for name, (member_of, _) in [*PEOPLE.items(), ("outsider", ([], False))]:
            person = get_user_model().objects.get(username=name)
            access = access_of(person)
            for endpoint in settings.HERMES_ENDPOINTS:
                assert access.role_on(endpoint) == _role_before(member_of), (name, endpoint)
            assert access.instance_admin == (_role_before(member_of) == "admin")

        back = _migrate(BEFORE)
        OldGroup = back.get_model("auth", "Group")
        for name, (member_of, _) in PEOPLE.items():
            now_in = set(
                OldGroup.objects.filter(name__in=ROLES, user__username=name).values_list(
                    "name", flat=True
                )
            )
            # The role (the highest group) is back; a lower group beside it said nothing.
            assert now_in == ({_role_before(member_of)} if member_of else set()), name
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
