"""Forms of the deletion workflow; bad input becomes a message, never a 500."""

from django import forms

from hermes_ui.deletion.approval import APPROVE, REJECT
from hermes_ui.deletion.policy import APPROVE_RULES, REJECT_RULES, RULES

MAX_TEXT = 2000


def _no_controls(value: str, what: str) -> str:
    if "\x00" in value:
        raise forms.ValidationError(f"The {what} cannot contain NUL characters.")
    return value


class RequestForm(forms.Form):
    reason = forms.CharField(
        max_length=MAX_TEXT,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Required. The approver decides on it; the audit trail keeps only its "
        "fingerprint.",
        error_messages={"required": "Give a reason: the approver decides on it."},
    )
    reason.error_id = "reason-error"  # type: ignore[attr-defined]  # the id pages and tests know (form_rendering)

    def clean_reason(self):
        return _no_controls(self.cleaned_data["reason"], "reason")


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[(APPROVE, "Approve"), (REJECT, "Reject")])
    policy_rule = forms.ChoiceField(
        label="Policy rule applied",
        choices=[
            ("", "Choose the rule you apply…"),
            ("Grounds to delete", list(APPROVE_RULES.items())),
            ("Grounds to keep", list(REJECT_RULES.items())),
        ],
        error_messages={"required": "Choose the policy rule you apply."},
    )
    comment = forms.CharField(
        max_length=MAX_TEXT,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Required: the evidence of your decision.",
        error_messages={"required": "Add a comment: it is the evidence of your decision."},
    )

    def clean_comment(self):
        return _no_controls(self.cleaned_data["comment"], "comment")

    def clean(self):
        data = super().clean()
        decision, rule = data.get("decision"), data.get("policy_rule")
        if decision == APPROVE and rule in REJECT_RULES:
            self.add_error(
                "policy_rule", f"“{RULES[rule]}” is a ground to keep the session, not to delete it."
            )
        if decision == REJECT and rule in APPROVE_RULES:
            self.add_error(
                "policy_rule", f"“{RULES[rule]}” is a ground to delete; choose a ground to keep."
            )
        return data
