"""``{% archived_note %}``: on a session page, whether Hermes archived it (inferred)."""

from django import template

from hermes_ui.index import archived

register = template.Library()


@register.inclusion_tag("lineage/_archived_note.html", takes_context=True)
def archived_note(context):
    endpoint, session_id = context.get("endpoint"), context.get("session_id")
    shown = bool(endpoint and session_id) and archived.state(endpoint, session_id)
    return {"archived": shown, "label": archived.LABEL, "restore": archived.RESTORE}
