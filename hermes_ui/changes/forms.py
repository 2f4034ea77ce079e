"""The inputs of rename, close, create and fork, checked the way Hermes will check them.

Titles are cleaned exactly as ``hermes_state.SessionDB.sanitize_title``
(hermes-agent 0.19.0) cleans them, so what the dashboard sends, records a
fingerprint of and later compares with is what the provider stores. Ids of
new sessions follow the create rules for create *and* fork
(``hermes_ui.hermes.ids.check_new_id``). What only Hermes can know (is the
title already used? does the id exist?) is left to its verdict.
"""

import re
import unicodedata

from django import forms
from django.utils.safestring import mark_safe

from hermes_ui.audit.idempotency import valid_key
from hermes_ui.hermes.ids import IdError, check_new_id

MAX_TITLE_LENGTH = 100  # SessionDB.MAX_TITLE_LENGTH
MAX_RAW_TITLE = 1000  # whitespace collapses, so the raw input may be longer than 100
MAX_REASON_LENGTH = 64
MAX_MODEL_LENGTH = 200
MAX_SYSTEM_PROMPT = 200_000

# The same character classes, in the same order, as sanitize_title.
_SURROGATES = re.compile("[\ud800-\udfff]")
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_UNICODE_CONTROL = re.compile("[\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffc\ufff9-\ufffb]")
_WHITESPACE = re.compile(r"\s+")

COMMON_REASONS = (
    ("client_closed", "client_closed: the person or client is done with it"),
    ("resolved", "resolved: the question or case is settled"),
    ("duplicate", "duplicate: another session covers the same thing"),
    ("abandoned", "abandoned: it was left unfinished"),
)
OTHER = "other"


class TitleTooLong(ValueError):
    pass


def clean_title(raw: str | None) -> str | None:
    """The title Hermes would store for ``raw``; ``None`` means no title."""
    if not raw:
        return None
    text = _SURROGATES.sub("\ufffd", raw)
    text = _ASCII_CONTROL.sub("", text)
    text = _UNICODE_CONTROL.sub("", text)
    text = _WHITESPACE.sub(" ", text).strip()
    if not text:
        return None
    if len(text) > MAX_TITLE_LENGTH:
        raise TitleTooLong(
            f"A title can have at most {MAX_TITLE_LENGTH} characters after cleaning; "
            f"this one has {len(text)}."
        )
    return text


def _has_control(value: str) -> bool:
    return any(unicodedata.category(ch) in {"Cc", "Cf"} for ch in value)


class KeyedForm(forms.Form):
    """A mutation form: the key minted when it was rendered makes a repeat a replay."""

    key = forms.CharField(widget=forms.HiddenInput, max_length=64)

    def clean_key(self):
        value = self.cleaned_data["key"]
        if not valid_key(value):
            raise forms.ValidationError(
                "This form is missing its submission key; reload the page and try again."
            )
        return value


class TitleField(forms.CharField):
    def __init__(self, **kwargs):
        super().__init__(required=False, strip=False, max_length=MAX_RAW_TITLE, **kwargs)

    def clean(self, value):
        try:
            return clean_title(super().clean(value))
        except TitleTooLong as exc:
            raise forms.ValidationError(str(exc)) from None


class NewIdField(forms.CharField):
    def __init__(self, **kwargs):
        super().__init__(required=False, strip=False, max_length=MAX_RAW_TITLE, **kwargs)

    def clean(self, value):
        try:
            return check_new_id(super().clean(value) or None)
        except IdError as exc:
            raise forms.ValidationError(str(exc)) from None


class RenameForm(KeyedForm):
    title = TitleField(
        label="New title",
        help_text="Hermes removes control characters and collapses runs of spaces; at most 100 "
        "characters remain. An empty title removes it. Titles are unique on this endpoint: only "
        "Hermes can tell whether another session already has it, and it will say so here.",
        widget=forms.TextInput(attrs={"size": 60, "autofocus": True}),
    )


class CloseForm(KeyedForm):
    reason = forms.ChoiceField(
        label="Close reason",
        choices=[*COMMON_REASONS, (OTHER, "Other reason (type it)")],
        widget=forms.RadioSelect,
    )
    other = forms.CharField(
        required=False,
        max_length=MAX_REASON_LENGTH,
        label="Other reason",
        widget=forms.TextInput(attrs={"placeholder": "e.g. handoff_to_human"}),
    )

    def clean(self):
        data = super().clean()
        if data.get("reason") != OTHER:
            data["end_reason"] = data.get("reason")
            return data
        other = (data.get("other") or "").strip()
        if not other:
            self.add_error("other", "Type the close reason, or pick one of the common reasons.")
        elif _has_control(other):
            self.add_error("other", "A close reason cannot contain control characters.")
        data["end_reason"] = other
        return data


_ID_RULES = (  # markup written here; joined into help texts marked safe below
    "At most 256 characters; no control characters, <code>..</code>, <code>/</code>, "
    "<code>\\</code> or drive prefix like <code>C:</code>."
)


class WithheldTextarea(forms.Textarea):
    """A textarea that never sends its text back: a refused system prompt is not echoed."""

    def format_value(self, value):
        return None


class CreateForm(KeyedForm):
    mark_optional = True  # the field template adds "optional" to the labels

    session_id = NewIdField(
        label="Id",
        help_text=mark_safe(  # noqa: S308 - constant markup, nothing from Hermes or a user
            f"Leave empty and Hermes generates one (<code>api_…</code>). {_ID_RULES}"
        ),
        widget=forms.TextInput(attrs={"size": 50}),
    )
    title = TitleField(
        help_text="Control characters are removed and runs of spaces collapse, as Hermes does; "
        "at most 100 characters remain. Unique on this endpoint.",
        widget=forms.TextInput(attrs={"size": 60}),
    )
    model = forms.CharField(
        required=False,
        max_length=MAX_MODEL_LENGTH,
        widget=forms.TextInput(attrs={"size": 40}),
        help_text="Stored as the session's metadata; empty means the endpoint's advertised model. "
        "Hermes' chat does not route turns by it.",
    )
    system_prompt = forms.CharField(
        required=False,
        strip=False,
        max_length=MAX_SYSTEM_PROMPT,
        widget=WithheldTextarea(attrs={"rows": 6, "cols": 80}),
        help_text="Stored by Hermes. The dashboard never shows it back, logs it or records it: "
        "afterwards you only see that one exists.",
    )

    def clean_model(self):
        value = self.cleaned_data["model"].strip()
        if _has_control(value):
            raise forms.ValidationError("A model name cannot contain control characters.")
        return value or None

    def clean_system_prompt(self):
        value = self.cleaned_data["system_prompt"]
        return value if value.strip() else None


class ForkForm(KeyedForm):
    mark_optional = True

    child_id = NewIdField(
        label="Child id",
        help_text=mark_safe(  # constant markup, nothing from Hermes or a user
            "Leave empty and Hermes generates one. At most 256 characters; no control "
            "characters, <code>..</code>, <code>/</code>, <code>\\</code> or drive prefix "
            "(the create rules, stricter than Hermes' own fork checks)."
        ),
        widget=forms.TextInput(attrs={"size": 50}),
    )
    title = TitleField(
        label="Child title",
        help_text="Leave empty and Hermes derives the next title of the lineage "
        "(“X #2” for a parent titled X). Cleaned like every title; at most 100 characters; "
        "unique on this endpoint.",
        # The page's browser tests and links address it as #id_fork_title.
        widget=forms.TextInput(attrs={"size": 60, "id": "id_fork_title"}),
    )
