# SeenSource moved to the sessions feature (hermes_ui.sessions). It only
# remembers which sources were seen, so its rows are simply re-learned.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("hermes_ui", "0001_initial")]

    operations = [migrations.DeleteModel(name="SeenSource")]
