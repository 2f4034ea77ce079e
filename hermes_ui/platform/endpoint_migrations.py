"""The one data step of the ``endpoint_identity`` migrations.

Rows written before endpoints had an identity cannot say which server they
came from. The best evidence is the configuration the upgrade runs with, so
rows of a configured id are stamped with that endpoint's identity; rows of an
id no longer configured keep an empty one and are never shown as any
endpoint's. Plain ORM updates, so this runs the same on SQLite and PostgreSQL.
"""

from django.conf import settings
from django.db import migrations


def stamp_configured(app_label: str, *model_names: str, with_url: tuple[str, ...] = ()):
    def forward(apps, schema_editor):
        for ep in settings.HERMES_ENDPOINTS.values():
            for name in model_names:
                update = {"endpoint_fp": ep.fingerprint}
                if name in with_url:
                    update["base_url"] = ep.public_url
                model = apps.get_model(app_label, name)
                model.objects.filter(endpoint=ep.id, endpoint_fp="").update(**update)

    return migrations.RunPython(forward, migrations.RunPython.noop, elidable=True)
