from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("index", "0005_content_words_postgres"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="indexedsession",
            index=models.Index(
                condition=models.Q(("vanished_at__isnull", True)),
                fields=["endpoint", "endpoint_fp", "order_key", "id"],
                name="index_present_order",
            ),
        ),
    ]
