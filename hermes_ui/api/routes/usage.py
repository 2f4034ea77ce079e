"""GET /e/{endpoint}/usage: the usage page's report (its form, its figures)."""

from typing import Literal

from django.http import QueryDict
from ninja import Router

from hermes_ui.api.document import IsoDate
from hermes_ui.api.errors import bad_request
from hermes_ui.api.routes import common
from hermes_ui.usage import forms, report
from hermes_ui.web.roles import SUPPORT

router = Router(tags=["usage"])


@router.get("/e/{endpoint}/usage", summary="Tokens and cost per day and group")
def usage(
    request,
    endpoint: str,
    days: Literal["7", "30", "90"] = "30",
    group: Literal["source", "model", "endpoint"] = "source",
    start: IsoDate | None = None,
    end: IsoDate | None = None,
):
    """``days``: 7, 30 or 90, or give ``start`` and ``end`` (YYYY-MM-DD, at most 366 days);
    ``group``: source, model or endpoint."""
    ep = common.endpoint(request, endpoint, SUPPORT)
    query = QueryDict(mutable=True)
    for name, value in (("days", days), ("by", group), ("start", start), ("end", end)):
        if value:
            query[name] = str(value)
    form = forms.bound(query, by="source")
    if not form.is_valid():
        reason = " ".join(m for errors in form.errors.values() for m in errors)  # type: ignore[misc]
        raise bad_request(reason.replace("by:", "group:") or "Bad usage parameters.")
    data = form.cleaned_data
    figures = report.build([ep], data["start"], data["end"], data["by"], user=request.user)
    names = [name for name, _ in report.COLUMNS]
    return {
        "start": figures.start.isoformat(),
        "end": figures.end.isoformat(),
        "group": figures.by,
        "lines": [
            {"day": line.day.isoformat(), "group": line.series, "kind": line.kind, **line.amounts}
            for line in figures.lines
        ],
        "total": {name: figures.total[name] for name in names},
    }
