"""Forms of the review core: a rubric and its fields, a queue, adding items, labelling."""

from __future__ import annotations

from django import forms
from django.forms.formsets import DELETION_FIELD_NAME

from hermes_ui.access import rows as seen
from hermes_ui.hermes.ids import MAX_ID_LENGTH
from hermes_ui.review import queues, rubrics
from hermes_ui.review.models import Queue, Rubric
from hermes_ui.web.params import BIGGEST

TEXT_MAX = 4000


class RubricForm(forms.Form):
    name = forms.CharField(label="Name", max_length=100)
    description = forms.CharField(
        label="Description", max_length=1000, required=False, widget=forms.Textarea({"rows": 2})
    )

    def __init__(self, *args, rubric: Rubric | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.rubric = rubric

    def clean_name(self):
        name = self.cleaned_data["name"].strip()
        others = Rubric.objects.filter(name=name)
        if self.rubric is not None:
            others = others.exclude(pk=self.rubric.pk)
        if others.exists():
            raise forms.ValidationError("Another rubric has this name.")
        return name


class FieldForm(forms.Form):
    """One rubric field. Options and the range apply to their type only."""

    key = forms.CharField(
        label="Key",
        max_length=60,
        help_text="Lowercase letters, digits and _; labels are stored and filtered by it.",
    )
    label = forms.CharField(label="Label", max_length=100, required=False)
    # A blank first option keeps an untouched extra row unchanged (so it is ignored).
    type = forms.ChoiceField(label="Type", choices=[("", "—"), *rubrics.TYPES])
    applies = forms.ChoiceField(label="Applies to", choices=[("", "—"), *rubrics.APPLIES])
    choices = forms.CharField(
        label="Options (choice)",
        required=False,
        max_length=1000,
        widget=forms.Textarea({"rows": 3}),
        help_text="One per line, 2 to 9: keys 1 to 9 pick them in this order.",
    )
    min = forms.IntegerField(label="Minimum (number)", required=False)
    max = forms.IntegerField(label="Maximum (number)", required=False)

    def clean_key(self):
        key = self.cleaned_data["key"].strip()
        if not rubrics.KEY.match(key):
            raise forms.ValidationError(
                "Start with a lowercase letter; then letters, digits or _ only."
            )
        return key

    def clean(self):
        data = super().clean()
        lines = [line.strip() for line in (data.get("choices") or "").splitlines()]
        data["choices"] = [line[:60] for line in lines if line]
        if data.get("type") and data.get("key"):
            for problem in rubrics._field_problems(data):
                raise forms.ValidationError(problem)
        return data


class BaseFieldSet(forms.BaseFormSet):
    def add_fields(self, form, index):
        super().add_fields(form, index)
        form.fields[DELETION_FIELD_NAME].label = "Remove this field"

    def clean(self):
        if any(self.errors):
            return
        fields = [f.cleaned_data for f in self.forms if self._kept(f)]
        problems = rubrics.problems(fields)
        if problems:
            raise forms.ValidationError(problems)

    def _kept(self, form) -> bool:
        return bool(form.cleaned_data) and not self._should_delete_form(form)  # type: ignore[attr-defined]

    def fields(self) -> list[dict]:
        return [f.cleaned_data for f in self.forms if self._kept(f)]


FieldSet = forms.formset_factory(
    FieldForm, formset=BaseFieldSet, extra=2, can_delete=True, max_num=rubrics.MAX_FIELDS
)


def field_initial(fields: list[dict]) -> list[dict]:
    """A version's fields as the formset's initial rows."""
    return [{**f, "choices": "\n".join(f.get("choices", []))} for f in fields]


class QueueForm(forms.Form):
    name = forms.CharField(label="Name", max_length=100)
    rubric = forms.ModelChoiceField(
        label="Rubric",
        queryset=Rubric.objects.filter(archived=False, versions__isnull=False).distinct(),
        empty_label=None,
    )
    reviews_needed = forms.TypedChoiceField(
        label="Reviews needed per item",
        choices=[(1, "1"), (2, "2"), (3, "3")],
        coerce=int,
        help_text="An item is completed when this many reviewers have completed it.",
    )
    any_reviewer = forms.BooleanField(
        label="Any reviewer may work this queue",
        required=False,
        initial=True,
        help_text="Untick to limit it to the assignees below.",
    )
    assignees = forms.ModelMultipleChoiceField(
        label="Assignees",
        queryset=seen.people(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args, endpoint=None, queue: Queue | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.endpoint, self.queue = endpoint, queue
        # Offered: who may review this endpoint's sessions. Anyone else with a grant
        # is refused by name in ``clean_assignees``, not as an "invalid choice".
        eligible = queues.reviewers(endpoint.id) if endpoint is not None else []
        self.fields["assignees"].choices = [(u.pk, u.get_username()) for u in eligible]  # type: ignore[attr-defined]
        self._eligible = {u.pk for u in eligible}

    def clean_assignees(self):
        chosen = list(self.cleaned_data["assignees"])
        refused = sorted(u.get_username() for u in chosen if u.pk not in self._eligible)
        if refused:
            raise forms.ValidationError(
                "%(names)s cannot review this endpoint's sessions (no reviewer role on "
                "%(endpoint)s), so they cannot be assigned.",
                params={"names": ", ".join(refused), "endpoint": self.endpoint.id},
            )
        return chosen

    def clean_name(self):
        name = self.cleaned_data["name"].strip()
        others = Queue.objects.filter(endpoint=self.endpoint.id, name=name)
        if self.queue is not None:
            others = others.exclude(pk=self.queue.pk)
        if others.exists():
            raise forms.ValidationError("A queue on this endpoint already has this name.")
        return name

    def clean(self):
        data = super().clean()
        if data.get("any_reviewer") is False and not data.get("assignees"):
            raise forms.ValidationError("Name at least one assignee, or tick “any reviewer”.")
        return data


def queue_choice(available) -> forms.ModelChoiceField:
    field = forms.ModelChoiceField(
        label="Queue", queryset=available, empty_label=None, to_field_name="pk"
    )
    field.label_from_instance = lambda queue: queue.name  # type: ignore[assignment, method-assign]  # not "endpoint:name"
    return field


class AddForm(forms.Form):
    """Add a session (or one of its messages) to a queue."""

    message = forms.IntegerField(
        max_value=BIGGEST, required=False, widget=forms.HiddenInput, min_value=0
    )

    def __init__(self, *args, available=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["queue"] = queue_choice(available)


class BulkAddForm(forms.Form):
    ids = forms.CharField(required=False, max_length=MAX_ID_LENGTH)  # read by selection.resolve

    def __init__(self, *args, available=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["queue"] = queue_choice(available)


ACTIONS = (("save", "Save"), ("complete", "Complete and next"), ("skip", "Skip"))


class ActionForm(forms.Form):
    """Which button of the review form was pressed, and where the transcript window is."""

    action = forms.ChoiceField(choices=ACTIONS)
    at = forms.IntegerField(
        max_value=BIGGEST, required=False
    )  # the transcript window to show after a save
    version = forms.IntegerField(max_value=BIGGEST, required=False)
