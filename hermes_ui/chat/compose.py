"""The chat form: one turn's fields, checked locally the way Hermes checks them.

Local checks mirror the provider (``missing_message``, content parts, the
memory-scope header), so most mistakes are caught before anything is sent;
the provider's own refusals land on the same fields through ``add_hermes_error``.
"""

from django import forms

from hermes_ui.audit.idempotency import BadKey, effective_key
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import MAX_CONTENT_PARTS, MAX_TEXT_CHARS, chat_body
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.platform.form_rendering import PlainHiddenInput

# Where each provider (or local) error code is shown on the form.
_FIELD_OF_CODE = {
    "missing_message": "message",
    "invalid_input": "message",
    "body_too_large": "message",
    "unsupported_content_type": "image_urls",
    "invalid_image_url": "image_urls",
    "invalid_content_part": "image_urls",
    "invalid_system_message": "system_message",
    "session_key_forbidden": "session_key",
}
_SESSION_KEY_ADVICE = (
    "Hermes refused the memory scope (HTTP 403): it only accepts X-Hermes-Session-Key when "
    "its API server has an API key configured. Configure API_SERVER_KEY on that server, or "
    "leave the memory scope empty."
)


class ChatForm(forms.Form):
    # form_rendering: an empty field's HTML (the group, the widget) is rendered once per
    # process, as on every session page; the form key and anything typed never are.
    cache_field_html = True

    message = forms.CharField(
        required=False,
        strip=False,
        max_length=MAX_TEXT_CHARS,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "Message to the agent"}),
    )
    system_message = forms.CharField(
        required=False,
        max_length=MAX_TEXT_CHARS,
        label="System message (this turn only)",
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    session_key = forms.CharField(
        required=False,
        max_length=256,
        label="Memory scope (session key)",
        help_text="Scopes Hermes' long-term memory; it does not choose the transcript.",
    )
    image_urls = forms.CharField(
        required=False,
        label="Image URLs (one per line: http, https or data:image/…)",
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    form_key = forms.CharField(widget=PlainHiddenInput, max_length=64)  # new each page

    # Each field's error keeps the id the page and its tests know (``error-message``…)
    # and says its codes in ``data-codes`` (form_rendering).
    for _field, _name in (
        (message, "message"),
        (system_message, "system_message"),
        (session_key, "session_key"),
        (image_urls, "image_urls"),
    ):
        _field.error_id = f"error-{_name}"  # type: ignore[attr-defined]
        _field.show_error_codes = True  # type: ignore[attr-defined]
    del _field, _name

    def clean_session_key(self):
        value = (self.cleaned_data.get("session_key") or "").strip()
        if value:
            try:
                check_path_id(value)
            except IdError:
                raise forms.ValidationError(
                    "A memory scope cannot contain line breaks or NUL.", code="invalid_input"
                ) from None
            # It travels to Hermes as an HTTP header: anything else broke the turn.
            if not (value.isascii() and value.isprintable()):
                raise forms.ValidationError(
                    "A memory scope may hold printable ASCII only (letters, digits, "
                    "punctuation, spaces): Hermes receives it as a header.",
                    code="invalid_input",
                )
        return value

    def clean_image_urls(self):
        urls = [u.strip() for u in (self.cleaned_data.get("image_urls") or "").splitlines()]
        urls = [u for u in urls if u]
        for url in urls:
            lowered = url.lower()
            if lowered.startswith("data:"):
                if not lowered.startswith("data:image/") or "," not in url:
                    raise forms.ValidationError(
                        "Only image data URLs (data:image/…,…) are supported.",
                        code="unsupported_content_type",
                    )
            elif not lowered.startswith(("http://", "https://")):
                raise forms.ValidationError(
                    "Image URLs must start with http://, https:// or data:image/.",
                    code="invalid_image_url",
                )
        if len(urls) + 1 > MAX_CONTENT_PARTS:
            raise forms.ValidationError(
                f"A message can have at most {MAX_CONTENT_PARTS:,} parts.", code="invalid_input"
            )
        return urls

    def clean_form_key(self):
        key = self.cleaned_data.get("form_key") or ""
        try:
            effective_key(key, {})
        except BadKey as exc:
            raise forms.ValidationError(str(exc), code="bad_form_key") from None
        return key

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            chat_body(self.content(), cleaned.get("system_message") or None)
        except e.InvalidInput as error:
            self.add_hermes_error(error)
        return cleaned

    def content(self):
        """The turn's content: plain text, or text and image parts."""
        text = self.cleaned_data.get("message") or ""
        urls = self.cleaned_data.get("image_urls") or []
        if not urls:
            return text
        parts = [{"type": "text", "text": text}] if text.strip() else []
        return parts + [{"type": "image_url", "image_url": {"url": u}} for u in urls]

    def add_hermes_error(self, error: e.HermesError) -> None:
        """Show a refusal (local or from Hermes) next to the field it is about."""
        field = _FIELD_OF_CODE.get(error.code)
        if error.code == "session_key_forbidden" or (
            error.status == 403 and self.cleaned_data.get("session_key")
        ):
            field, text = "session_key", _SESSION_KEY_ADVICE
        elif isinstance(error, e.InvalidInput):
            text = error.message  # the dashboard's own words already say what to do
        else:
            text = error.provider_message or error.message
            if error.advice and error.advice not in text:
                text = f"{text} {error.advice}"
        if field == "image_urls" and not self.cleaned_data.get("image_urls"):
            field = "message"
        self.add_error(field, forms.ValidationError(text, code=error.code))

    def submission_key(self, session_id: str) -> str:
        """The turn's idempotency key: this rendered form with exactly these inputs."""
        inputs = {
            name: self.cleaned_data.get(name)
            for name in ("message", "system_message", "session_key", "image_urls")
        }
        return effective_key(self.cleaned_data["form_key"], {**inputs, "session": session_id})


def refusal_of(turn) -> e.HermesError | None:
    """Hermes' refusal of an earlier submission of this form, to show it again."""
    if not turn.rejected:
        return None
    return e.BadRequest(
        turn.error_message,
        code=turn.error_code or "bad_request",
        operation="session_chat",
        provider_message=turn.error_message,
    )
