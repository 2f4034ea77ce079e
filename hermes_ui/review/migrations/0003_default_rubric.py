"""Ship the default rubric (version 1): resolved yes/no, quality 1-5, a policy issue
per message, and a note. Its fields are copied here, not imported, so this migration
keeps meaning what it meant when the rubric module changes."""

from django.db import migrations

FIELDS = [
    {"key": "resolved", "label": "Resolved", "type": "bool", "applies": "session"},
    {"key": "quality", "label": "Quality", "type": "number", "applies": "session", "min": 1, "max": 5},
    {
        "key": "policy",
        "label": "Policy issue",
        "type": "choice",
        "applies": "message",
        "choices": ["none", "personal data", "unsafe advice", "other"],
    },
    {"key": "note", "label": "Note", "type": "text", "applies": "session"},
]
DESCRIPTION = "Was the request resolved, how good was the session, and any policy issue per message."


def add_default(apps, schema_editor):
    Rubric = apps.get_model("review", "Rubric")
    RubricVersion = apps.get_model("review", "RubricVersion")
    rubric, created = Rubric.objects.get_or_create(
        name="Default", defaults={"description": DESCRIPTION, "is_default": True}
    )
    if created:
        RubricVersion.objects.create(rubric=rubric, number=1, fields=FIELDS)


def remove_default(apps, schema_editor):
    Rubric = apps.get_model("review", "Rubric")
    Rubric.objects.filter(name="Default", is_default=True, queues__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("review", "0002_item_skipped_by")]

    operations = [migrations.RunPython(add_default, remove_default)]
