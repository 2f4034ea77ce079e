"""Forms of retention: a rule (name, search, age, on/off) and the keep tags."""

from django import forms

from hermes_ui.retention import evaluate
from hermes_ui.retention.models import RetentionRule
from hermes_ui.tags.models import Tag

MAX_AGE_DAYS = 3650


class RuleForm(forms.Form):
    name = forms.CharField(max_length=100, label="Name")
    query = forms.CharField(
        max_length=200,
        label="Search",
        help_text="Sessions this rule may propose, in the search box's syntax "
        "(source:cron closed:yes).",
    )
    age_days = forms.IntegerField(
        min_value=1,
        max_value=MAX_AGE_DAYS,
        label="Older than (days)",
        help_text="Only sessions whose last activity is older than this many days.",
    )
    active = forms.BooleanField(required=False, initial=True, label="Active (runs daily)")

    def __init__(self, *args, endpoint_id: str, rule: RetentionRule | None = None, **kwargs):
        self.endpoint_id, self.rule = endpoint_id, rule
        if rule is not None:
            kwargs.setdefault(
                "initial",
                {
                    "name": rule.name,
                    "query": rule.query,
                    "age_days": rule.age_days,
                    "active": rule.active,
                },
            )
        super().__init__(*args, **kwargs)

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Type a name.")
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in self.cleaned_data["name"]):
            raise forms.ValidationError("A name cannot contain control characters.")
        taken = RetentionRule.objects.filter(endpoint=self.endpoint_id, name=name)
        if self.rule is not None:
            taken = taken.exclude(pk=self.rule.pk)
        if taken.exists():
            raise forms.ValidationError("Another rule of this endpoint has this name.")
        return name

    def clean_query(self):
        text = self.cleaned_data["query"]
        for problem in evaluate.problems(text):
            self.add_error("query", problem)
        return text


class KeepTagForm(forms.Form):
    """Add or remove one tag from the tags that protect sessions."""

    op = forms.ChoiceField(choices=[("add", "Protect"), ("remove", "Stop protecting")])
    tag = forms.ModelChoiceField(queryset=Tag.objects.all(), label="Tag", empty_label=None)
