"""Rubrics: the fields a review asks for, their validation, and their versions.

A field is a dict ``{"key", "label", "type", "applies", ...}`` (see
``RubricVersion``). Editing a rubric saves a new version; labels keep the
version their review was made against, so nothing already given is rewritten.
"""

from __future__ import annotations

import re

from django.db import transaction

from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.review.models import Rubric, RubricVersion

CHOICE, NUMBER, BOOL, TEXT = "choice", "number", "bool", "text"
TYPES = ((CHOICE, "choice"), (NUMBER, "number"), (BOOL, "yes/no"), (TEXT, "free text"))
SESSION, MESSAGE = "session", "message"
APPLIES = ((SESSION, "the session"), (MESSAGE, "each message"))
MAX_CHOICES = 9  # keys 1 to 9 pick them
MAX_FIELDS = 20
KEY = re.compile(r"^[a-z][a-z0-9_]{0,59}$")
YES, NO = "yes", "no"

DEFAULT_NAME = "Default"
DEFAULT_FIELDS = [
    {"key": "resolved", "label": "Resolved", "type": BOOL, "applies": SESSION},
    {"key": "quality", "label": "Quality", "type": NUMBER, "applies": SESSION, "min": 1, "max": 5},
    {
        "key": "policy",
        "label": "Policy issue",
        "type": CHOICE,
        "applies": MESSAGE,
        "choices": ["none", "personal data", "unsafe advice", "other"],
    },
    {"key": "note", "label": "Note", "type": TEXT, "applies": SESSION},
]


def problems(fields: list[dict]) -> list[str]:
    """What is wrong with a list of fields, as sentences (empty: it is a valid rubric)."""
    found = []
    if not fields:
        found.append("A rubric needs at least one field.")
    if len(fields) > MAX_FIELDS:
        found.append(f"A rubric has at most {MAX_FIELDS} fields.")
    keys = [f.get("key", "") for f in fields]
    for key in sorted({k for k in keys if keys.count(k) > 1}):
        found.append(f"The key “{key}” is used by more than one field; keys must be unique.")
    for field in fields:
        found.extend(_field_problems(field))
    return found


def _field_problems(field: dict) -> list[str]:
    key, kind = field.get("key", ""), field.get("type")
    name = f"Field “{key}”"
    if not KEY.match(key or ""):
        return [f"{name}: a key is a lowercase letter then letters, digits or _ (60 at most)."]
    if kind not in dict(TYPES) or field.get("applies") not in dict(APPLIES):
        return [f"{name}: unknown type or scope."]
    if kind == CHOICE:
        choices = field.get("choices") or []
        if not 2 <= len(choices) <= MAX_CHOICES:
            return [f"{name}: a choice has 2 to {MAX_CHOICES} options (keys 1 to 9 pick them)."]
        if len(set(choices)) != len(choices):
            return [f"{name}: options must differ from each other."]
    if kind == NUMBER:
        low, high = field.get("min"), field.get("max")
        if low is None or high is None:
            return [f"{name}: a number needs a minimum and a maximum."]
        if low >= high:
            return [f"{name}: the minimum must be below the maximum."]
    return []


def tidy(field: dict) -> dict:
    """Only the keys that matter for the field's type."""
    keep = {k: field[k] for k in ("key", "label", "type", "applies")}
    keep["label"] = keep["label"] or keep["key"]
    if field["type"] == CHOICE:
        keep["choices"] = list(field["choices"])
    if field["type"] == NUMBER:
        keep["min"], keep["max"] = int(field["min"]), int(field["max"])
    return keep


def current(rubric: Rubric) -> RubricVersion:
    return rubric.versions.order_by("-number").first()  # type: ignore[return-value]


def save(user, rubric: Rubric, fields: list[dict], *, created: bool) -> RubricVersion:
    """Store ``fields`` as the rubric's next version (the first, for a new rubric), audited."""
    with transaction.atomic():
        last = rubric.versions.order_by("-number").values_list("number", flat=True).first()
        version = RubricVersion.objects.create(
            rubric=rubric,
            number=(last or 0) + 1,
            fields=[tidy(f) for f in fields],
            created_by=user,
        )
        trail.record(
            user,
            capability="review.rubric_create" if created else "review.rubric_edit",
            endpoint="",
            outcome=Outcome.SUCCESS,
            evidence={"id": rubric.pk, "version": version.number, "count": len(fields)},
        )
    return version


def split(version: RubricVersion) -> tuple[list[dict], list[dict]]:
    """The version's session fields and its message fields."""
    fields = version.fields or []
    return (
        [f for f in fields if f["applies"] == SESSION],
        [f for f in fields if f["applies"] == MESSAGE],
    )


def value_text(field: dict, value) -> str:
    """A form value as the label's text ('' for no answer)."""
    if value in (None, ""):
        return ""
    if field["type"] == BOOL:
        return YES if value in (True, YES) else NO
    return str(value)


def form_initial(field: dict, text: str):
    """A label's text back as the form's initial value."""
    if field["type"] == NUMBER:
        try:
            return int(text)
        except ValueError:
            return None
    return text
