"""``{% archived_note %}``: on a session page, whether Hermes archived it.

A Hermes newer than 0.19 reports it on the session itself; that answer
decides. Elsewhere it is inferred from the index (``index.archived``).
"""

from django import template

from hermes_ui.index import archived

register = template.Library()
REPORTED_RESTORE = "Restore (next to Rename) puts it back in Hermes' list."


@register.inclusion_tag("index/_archived_note.html", takes_context=True)
def archived_note(context):
    endpoint, session_id = context.get("endpoint"), context.get("session_id")
    reported = getattr(context.get("session"), "archived", None)
    if isinstance(reported, bool):
        return {"archived": reported, "label": archived.REPORTED_LABEL, "restore": REPORTED_RESTORE}
    shown = bool(endpoint and session_id) and archived.state(endpoint, session_id)
    return {"archived": shown, "label": archived.LABEL, "restore": archived.RESTORE}
