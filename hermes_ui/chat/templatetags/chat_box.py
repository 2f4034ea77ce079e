"""``{% chat_box %}``: the chat region of a session page, from the page's own context:
the latest turn sent from here and a button that opens the form (the form's own
page without JavaScript), not an empty text box on every view."""

from django import template
from django.templatetags.static import static
from django.utils.html import format_html

from hermes_ui.chat import box

register = template.Library()


@register.simple_tag(takes_context=True)
def chat_box(context):
    request = context["request"]
    session = context.get("session")
    session_id = context.get("session_id") or (session.id if session is not None else "")
    # Only a compressed session's turns go elsewhere (box.context, sessions.live_tip).
    moved = session is not None and session.compressed
    data = box.state(
        request,
        context["endpoint"],
        session_id,
        resolved_id=context.get("resolved_id") if moved else None,
        session=session,
        live_tip=context.get("live_tip") if moved else None,
    )
    # Rendered in the page's own context (the box's values pushed on top) rather
    # than with render_to_string: that would build a second request context and
    # run every context processor again for one region of the same page.
    # The form opens on demand, but a turn still running keeps the whole box: its last
    # frame hands the form's Send button back (out of band), which needs the form here.
    if data["busy"]:
        data, part = box.with_form(data), "chat/box.html#box"
    else:
        part = "chat/box.html#region"
    box_template = context.template.engine.get_template(part)
    with context.push(data):
        html = box_template.render(context)
    # The SSE extension is only needed where a turn can stream: here.
    assets = format_html(
        '<link rel="stylesheet" href="{}"><script src="{}" defer></script>',
        static("css/chat.css"),
        static("vendor/htmx/htmx-ext-sse-2.2.4.js"),
    )
    return assets + html
