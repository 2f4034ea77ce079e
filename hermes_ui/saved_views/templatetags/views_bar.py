"""``{% views_bar %}``: the saved views bar at the top of the index page."""

from django import template

from hermes_ui.saved_views import catalogue, changes
from hermes_ui.saved_views.forms import SaveViewForm

register = template.Library()


@register.simple_tag(takes_context=True)
def views_bar(context):
    request, ep = context["request"], context["endpoint"]
    current = {name: request.GET.get(name, "") for name in catalogue.FIELDS}
    has_search = any(current.values())
    data = {
        "views": [(view, view.url(ep.id)) for view in catalogue.visible(request.user)],
        "active_view": request.GET.get("view", ""),
        "all_url": catalogue.View(catalogue.ALL, "All sessions").url(ep.id),
        "save_form": SaveViewForm(initial=current, auto_id="id_save_%s") if has_search else None,
        "has_search": has_search,
        "may_share": changes.may_share(request.user),
    }
    part = context.template.engine.get_template("saved_views/_views.html")
    with context.push(data):
        return part.render(context)
