"""Keep tags are held by the tag's id, not its name: a rename keeps the protection.

Each existing row is linked to the tag of its name (names are unique whatever
their case); a row whose name no tag has any more protected nothing and goes.
"""

import django.db.models.deletion
from django.db import migrations, models


def by_id(apps, schema_editor):
    KeepTag = apps.get_model("retention", "KeepTag")
    Tag = apps.get_model("tags", "Tag")
    for keep in KeepTag.objects.all():
        tag = Tag.objects.filter(name__iexact=keep.tag_name).first()
        if tag is None:
            keep.delete()
        else:
            keep.tag = tag
            keep.save(update_fields=["tag"])


def by_name(apps, schema_editor):
    KeepTag = apps.get_model("retention", "KeepTag")
    for keep in KeepTag.objects.select_related("tag"):
        keep.tag_name = keep.tag.name
        keep.save(update_fields=["tag_name"])


class Migration(migrations.Migration):
    dependencies = [
        ("retention", "0001_initial"),
        ("tags", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="keeptag",
            name="tag",
            field=models.OneToOneField(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="keep",
                to="tags.tag",
            ),
        ),
        migrations.AlterField(
            model_name="keeptag",
            name="tag_name",
            field=models.CharField(max_length=60, blank=True, default=""),
        ),
        migrations.RunPython(by_id, by_name),
        migrations.RemoveField(model_name="keeptag", name="tag_name"),
        migrations.AlterField(
            model_name="keeptag",
            name="tag",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.CASCADE, related_name="keep", to="tags.tag"
            ),
        ),
        migrations.AlterModelOptions(name="keeptag", options={"ordering": ["tag__name"]}),
    ]
