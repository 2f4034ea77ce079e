"""PostgreSQL: index message text split into words the way the search box splits them.

PostgreSQL's default text parser reads markup, e-mail addresses, URLs, file
paths and decimals as tokens of their own, and drops what sits between tags:
``<script>alert(1)</script>`` indexed no "alert", ``user@example.com`` only
the whole address, ``3.14`` no "14". The search box sends words (letters and
digits, ``query_syntax.WORD``), so such messages were never found. The
column now indexes the text with every ASCII non-alphanumeric character (and
common Unicode punctuation) turned into a space first, as SQLite's
``unicode61`` tokenizer splits it, and lower-cased by ICU where the server
has it: in a database whose ``LC_CTYPE`` is C, ``to_tsvector`` folds only
ASCII letters, so "BÜRO" was never found as "büro". SQLite is unchanged.
"""

from django.db import migrations

TABLE = "index_contentmessage"
INDEX = f"{TABLE}_search_gin"
# ASCII except letters and digits ("_" included), Latin-1 punctuation and
# symbols, general punctuation, CJK punctuation. No "%" in the SQL: the
# statement travels without parameters.
SEPARATORS = (
    r"[\x01-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f"
    r"\u00a0-\u00a9\u00ab-\u00b1\u00b4\u00b6-\u00b8\u00bb\u00bf\u00d7\u00f7"
    r"\u2000-\u206f\u3000-\u303f]+"
)
PARSED = "to_tsvector('simple', text)"  # 0004's column


def _words(schema_editor) -> str:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'")
        icu = cursor.fetchone() is not None
    text = 'lower(text COLLATE "und-x-icu")' if icu else "text"
    return f"to_tsvector('simple', regexp_replace({text}, '{SEPARATORS}', ' ', 'g'))"


def _column(expression: str) -> list[str]:
    return [
        f"DROP INDEX IF EXISTS {INDEX}",
        f"ALTER TABLE {TABLE} DROP COLUMN IF EXISTS search",
        f"ALTER TABLE {TABLE} ADD COLUMN search tsvector GENERATED ALWAYS AS ({expression}) STORED",
        f"CREATE INDEX {INDEX} ON {TABLE} USING gin (search)",
    ]


def _run(expression):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in _column(expression(schema_editor)):
                schema_editor.execute(sql)

    return apply


class Migration(migrations.Migration):
    dependencies = [("index", "0004_content_index")]

    operations = [migrations.RunPython(_run(_words), _run(lambda schema_editor: PARSED))]
