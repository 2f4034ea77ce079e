"""Masking secrets and personal data in exported text, and counting the masks.

Shapes, not knowledge: API keys and bearer tokens by their well-known
prefixes and lengths, e-mail addresses, phone numbers written with
separators or a ``+`` country code, and card numbers that pass the Luhn
check (so an order number of the right length stays). Each mask names what
it replaced, never any of its characters.
"""

from __future__ import annotations

import re

# Order matters: a token inside a bearer header is masked once, as a token;
# cards before phones, so a card's digit groups are never read as a phone.
#
# Linear time: a pattern tried from every position of a long run must give up
# after a bounded number of characters, or a 200k-character run costs
# 200k x 200k steps. So the e-mail local part is at most 64 characters (RFC 5321's
# limit; a longer run before ``@`` has its last 64 masked), and an API key has at
# most 16 ``word-`` segments after its prefix. Possessive ``++`` marks runs that
# must be followed by a character outside their class (``@`` after the local part,
# ``.`` after a domain label, ``-`` after a key segment): a failed try never gives
# them back one character at a time, which changes no match. The other patterns
# either start only where a run starts (look-behind, ``\b`` before a fixed prefix)
# or are bounded already; tests/export/test_redact.py times each on long runs.
_API_KEY = re.compile(
    r"\b(?:sk|pk|rk)-(?:[A-Za-z0-9]++-){0,16}[A-Za-z0-9_]{16,}"  # OpenAI/Anthropic style
    r"|\bAKIA[0-9A-Z]{16}\b"  # AWS access key id
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}\b"  # GitHub tokens
    r"|\bgithub_pat_[A-Za-z0-9_]{30,}\b"
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}\b"  # Slack
    r"|\bAIza[0-9A-Za-z_-]{35}\b"  # Google
    r"|\bhf_[A-Za-z0-9]{30,}\b"  # Hugging Face
    # Hermes' own mask of a key it saw (6 characters, "...", the last 4): still 10
    # characters of the secret, so masked whole. Only after a key's known prefix.
    r"|\b(?:(?:sk|pk|rk)-\w{3}|AKIA\w{2}|gh[pousr]_\w{2}|xox[abprs]-\w|AIza\w{2}|hf_\w{3})"
    r"\.\.\.[A-Za-z0-9_-]{4}(?![A-Za-z0-9_-])"
)
_BEARER = re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]{1,64}+@[A-Za-z0-9-]++(?:\.[A-Za-z0-9-]++)*\.[A-Za-z]{2,}")
_CARD = re.compile(r"(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])")
# A phone number needs a shape a date or an address does not have: a ``+``
# country code, a bracketed area code, or the 3-3-4 grouping.
_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,5}"
    r"|\(\d{2,4}\)\s?\d{3,4}[\s.-]?\d{3,4}"
    r"|\d{3}[\s.-]\d{3}[\s.-]\d{4})(?![\w-])"
)
MASKS = {
    "api_key": "[redacted:api-key]",
    "bearer": "Bearer [redacted:token]",
    "email": "[redacted:email]",
    "card": "[redacted:card]",
    "phone": "[redacted:phone]",
    "user": "[redacted:user]",
}


def luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


class Redactor:
    """Masks text and keeps count; ``enabled=False`` passes text through unchanged."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.count = 0
        self.by_kind: dict[str, int] = {}

    def text(self, value: str) -> str:
        if not self.enabled or not value:
            return value
        value = self._sub(_BEARER, "bearer", value)
        value = self._sub(_API_KEY, "api_key", value)
        value = self._sub(_EMAIL, "email", value)
        value = self._sub(_CARD, "card", value, check=lambda m: luhn_ok(_digits(m)))
        value = self._sub(_PHONE, "phone", value, check=lambda m: 7 <= len(_digits(m)) <= 15)
        return value

    def value(self, value):
        """Strings anywhere inside lists and dicts; keys and other scalars kept."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {key: self.value(item) for key, item in value.items()}
        return value

    def mask(self, kind: str) -> str:
        """Count one masked value of ``kind`` and return its mask."""
        self.count += 1
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
        return MASKS[kind]

    def _sub(self, pattern: re.Pattern, kind: str, text: str, check=None) -> str:
        def replace(match: re.Match) -> str:
            if check is not None and not check(match.group(0)):
                return match.group(0)
            return self.mask(kind)

        return pattern.sub(replace, text)


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


# The message fields that hold what people and models wrote; ids, roles,
# times and reasons are the provider's own and are never masked.
TEXT_FIELDS = ("content", "reasoning", "reasoning_content", "tool_calls")


def message(redactor: Redactor, row: dict) -> dict:
    if not redactor.enabled:
        return row
    return {k: redactor.value(v) if k in TEXT_FIELDS else v for k, v in row.items()}


def session_row(redactor: Redactor, row: dict) -> dict:
    """The row with its title masked, and its ``user_id`` (the person on the platform,
    e.g. a Telegram account) replaced whole: an id is personal data of no fixed shape."""
    if not redactor.enabled:
        return row
    masked = dict(row)
    if isinstance(row.get("title"), str):
        masked["title"] = redactor.text(row["title"])
    if row.get("user_id") not in (None, ""):
        masked["user_id"] = redactor.mask("user")
    return masked
