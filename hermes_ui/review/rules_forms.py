"""The form that adds a rule to a queue: searches in the index syntax and a sampling rate."""

from django import forms

from hermes_ui.review import rules
from hermes_ui.web.params import BIGGEST


class RuleForm(forms.Form):
    query = forms.CharField(
        max_length=200,
        label="Search",
        help_text="Sessions this rule samples, in the search box's syntax (closed:yes source:cli).",
    )
    percent = forms.IntegerField(
        min_value=0,
        max_value=100,
        initial=100,
        label="Sample (%)",
        help_text="The share of the search's matches added; the same sessions on every run.",
    )
    always = forms.CharField(
        max_length=200,
        required=False,
        label="Always add",
        help_text="Optional: a search whose every match is added (e.g. a failing end reason).",
    )

    def clean_query(self):
        return self._checked("query")

    def clean_always(self):
        return self._checked("always") if self.cleaned_data.get("always") else ""

    def _checked(self, name: str) -> str:
        text = self.cleaned_data[name]
        for problem in rules.problems(text):
            self.add_error(name, problem)
        return text


class RuleAction(forms.Form):
    """Run now or delete: the rule, which must be of the queue in the URL."""

    action = forms.ChoiceField(choices=[("run", "Run now"), ("remove", "Delete rule")])
    rule = forms.IntegerField(max_value=BIGGEST, min_value=1)
