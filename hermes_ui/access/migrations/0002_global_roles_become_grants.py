"""Today's global roles become grants on ``*``: nothing changes for anyone until an admin narrows it.

A person in the Django groups support/reviewer/admin gets their highest one as
a grant on every endpoint; an account linked to single sign-on gets it as an
SSO grant (the next sign-in or revalidation re-evaluates it), any other as a
local one. The three groups go: roles live in grants now. Reversing puts
each person's grant on ``*`` back into the groups.
"""

from django.db import migrations

ROLES = ("support", "reviewer", "admin")


def forwards(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Grant = apps.get_model("access", "Grant")
    SocialAccount = apps.get_model("socialaccount", "SocialAccount")
    linked = set(SocialAccount.objects.values_list("user_id", flat=True))
    best: dict[int, int] = {}
    for rank, name in enumerate(ROLES):
        for user_id in Group.objects.filter(name=name).values_list("user", flat=True):
            if user_id is not None:
                best[user_id] = max(best.get(user_id, -1), rank)
    Grant.objects.bulk_create(
        Grant(
            user_id=user_id,
            endpoint="*",
            role=ROLES[rank],
            sources=[],
            origin="sso" if user_id in linked else "local",
        )
        for user_id, rank in sorted(best.items())
    )
    Group.objects.filter(name__in=ROLES).delete()


def backwards(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Grant = apps.get_model("access", "Grant")
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ROLES}
    for grant in Grant.objects.filter(endpoint="*", user__isnull=False, sources=[]):
        groups[grant.role].user_set.add(grant.user_id)


class Migration(migrations.Migration):
    dependencies = [
        ("access", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("socialaccount", "0006_alter_socialaccount_extra_data"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
