"""Template helpers of the changes feature (rename/close, create, fork, outcomes)."""

import json

from django import template

from hermes_ui.audit.idempotency import mint_key

register = template.Library()


@register.simple_tag
def fresh_key():
    """A submission key for a form rendered by a view that did not mint one."""
    return mint_key()


@register.filter
def as_json(value) -> str:
    """Recorded evidence, indented (it is already redacted; templates escape it)."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


@register.inclusion_tag("changes/_session_flags.html", takes_context=True)
def session_flag_buttons(context, endpoint, session):
    """Archive/Restore and Pin/Unpin, or the note that this Hermes needs a newer release."""
    from hermes_ui.changes import flags

    return {
        "endpoint": endpoint,
        "session_id": session.id,
        "session": session,
        "refused": flags.refused_here(endpoint, session),
        "needs": flags.NEEDS,
        "csrf_token": context.get("csrf_token"),
    }
