"""The content index: searchable message text, and its full-text index per database.

SQLite gets an FTS5 table over ``index_contentmessage`` (external content,
kept in step by triggers); PostgreSQL a generated ``tsvector`` column with a
GIN index. One set of migrations serves both: the full-text parts run only
on their own vendor.
"""

from django.db import migrations, models

FTS = "index_content_fts"
TABLE = "index_contentmessage"

SQLITE_UP = [
    f"CREATE VIRTUAL TABLE {FTS} USING fts5(text, content='{TABLE}', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 2')",
    f"CREATE TRIGGER {FTS}_ai AFTER INSERT ON {TABLE} BEGIN "
    f"INSERT INTO {FTS}(rowid, text) VALUES (new.id, new.text); END",
    f"CREATE TRIGGER {FTS}_ad AFTER DELETE ON {TABLE} BEGIN "
    f"INSERT INTO {FTS}({FTS}, rowid, text) VALUES ('delete', old.id, old.text); END",
    f"CREATE TRIGGER {FTS}_au AFTER UPDATE OF text ON {TABLE} BEGIN "
    f"INSERT INTO {FTS}({FTS}, rowid, text) VALUES ('delete', old.id, old.text); "
    f"INSERT INTO {FTS}(rowid, text) VALUES (new.id, new.text); END",
]
SQLITE_DOWN = [
    f"DROP TRIGGER IF EXISTS {FTS}_au",
    f"DROP TRIGGER IF EXISTS {FTS}_ad",
    f"DROP TRIGGER IF EXISTS {FTS}_ai",
    f"DROP TABLE IF EXISTS {FTS}",
]
POSTGRES_UP = [
    f"ALTER TABLE {TABLE} ADD COLUMN search tsvector "
    "GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED",
    f"CREATE INDEX {TABLE}_search_gin ON {TABLE} USING gin (search)",
]
POSTGRES_DOWN = [
    f"DROP INDEX IF EXISTS {TABLE}_search_gin",
    f"ALTER TABLE {TABLE} DROP COLUMN IF EXISTS search",
]


def _run(statements: dict):
    def apply(apps, schema_editor):
        for sql in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql)

    return apply


class Migration(migrations.Migration):
    dependencies = [("index", "0003_endpoint_identity")]

    operations = [
        migrations.CreateModel(
            name="ContentSession",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("endpoint", models.CharField(max_length=40)),
                ("endpoint_fp", models.CharField(blank=True, default="", max_length=16)),
                ("session_id", models.CharField(max_length=300)),
                ("resolved_id", models.CharField(max_length=300)),
                ("signature", models.CharField(max_length=80)),
                ("messages", models.IntegerField(default=0)),
                ("read_at", models.DateTimeField()),
            ],
            options={
                "indexes": [
                    models.Index(
                        fields=["endpoint", "endpoint_fp", "resolved_id"],
                        name="content_session_resolved",
                    )
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("endpoint", "endpoint_fp", "session_id"),
                        name="uniq_content_session",
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="ContentMessage",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("endpoint", models.CharField(max_length=40)),
                ("endpoint_fp", models.CharField(blank=True, default="", max_length=16)),
                ("session_id", models.CharField(max_length=300)),
                ("message_id", models.BigIntegerField()),
                ("role", models.CharField(blank=True, max_length=40)),
                ("timestamp", models.FloatField(null=True)),
                ("text", models.TextField()),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("endpoint", "endpoint_fp", "session_id", "message_id"),
                        name="uniq_content_message",
                    )
                ],
            },
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE_UP, "postgresql": POSTGRES_UP}),
            _run({"sqlite": SQLITE_DOWN, "postgresql": POSTGRES_DOWN}),
        ),
    ]
