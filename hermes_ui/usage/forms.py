"""The usage page's GET form: a range (7 / 30 / 90 days or custom dates) and a grouping."""

from __future__ import annotations

from datetime import timedelta

from django import forms

from hermes_ui.usage import clock

MAX_DAYS = 366
RANGES = [("7", "Last 7 days"), ("30", "Last 30 days"), ("90", "Last 90 days")]
RANGES_CUSTOM = [*RANGES, ("custom", "Custom dates")]
GROUPS = [("source", "Source"), ("model", "Model"), ("endpoint", "Endpoint")]
CHARTS = [("tokens", "Input + output tokens"), ("cost", "Estimated cost")]
DEFAULTS = {"days": "30", "by": "source", "chart": "tokens"}


class UsageForm(forms.Form):
    days = forms.ChoiceField(label="Range", choices=RANGES_CUSTOM)
    start = forms.DateField(
        label="From",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="With “Custom dates”: the first day (UTC).",
    )
    end = forms.DateField(
        label="To",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=f"The last day (UTC); at most {MAX_DAYS} days in all.",
    )
    by = forms.ChoiceField(label="Group by", choices=GROUPS)
    chart = forms.ChoiceField(label="Chart", choices=CHARTS)

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        start, end = data.get("start"), data.get("end")
        if data["days"] != "custom":
            end = clock.today()
            start = end - timedelta(days=int(data["days"]) - 1)
        elif start is None or end is None:
            raise forms.ValidationError("Custom dates need both a “From” and a “To” date.")
        elif start > end:
            raise forms.ValidationError("The “From” date is after the “To” date.")
        elif (end - start).days + 1 > MAX_DAYS:
            raise forms.ValidationError(f"Pick at most {MAX_DAYS} days (this range has more).")
        data["start"], data["end"] = start, end
        return data


def bound(query, *, by: str = "source") -> UsageForm:
    """The form over the query string, with defaults for what it leaves out.

    Custom dates without a range choice mean "custom": a link with just
    ``?start=…&end=…`` works.
    """
    data = {**DEFAULTS, "by": by}
    if query.get("start") or query.get("end"):
        data["days"] = "custom"
    data.update({name: query.get(name) for name in UsageForm.base_fields if query.get(name)})
    return UsageForm(data)
