"""``{% session_tags_region %}``: the tags region of a session page, from the page's context."""

from django import template

from hermes_ui.tags import region

register = template.Library()


@register.simple_tag(takes_context=True)
def session_tags_region(context):
    data = region.context(context["request"], context["endpoint"], context["session_id"])
    # Rendered in the page's own context (see ``chat_box``): no second request context.
    part = context.template.engine.get_template("tags/_region.html")
    with context.push(data):
        return part.render(context)
