"""The OpenAPI document, told whole: what every route can answer, declared in one place.

django-ninja documents a route's success only. ``DocumentedApi`` adds to every
operation what the API's shared code does to it, derived from its method and
path, so a new route is documented the moment it is registered: the error
answers (one ``Error`` schema), the ``Idempotency-Key`` header of a write, the
Bearer scheme, ``Retry-After`` where it is sent, the shape of cursor paging and
how a session id travels. Why each rule holds: docs/api/index.md, "The OpenAPI
document".
"""

from __future__ import annotations

import copy
import re
from datetime import date
from http import HTTPMethod
from typing import Annotated, Any

from ninja import NinjaAPI
from pydantic import BeforeValidator, Field

from hermes_ui.chat.views.stream import MAX_CURSOR_DIGITS
from hermes_ui.hermes.ids import MAX_ID_LENGTH

# Every method but the safe ones (RFC 9110) writes.
WRITES = frozenset(m.lower() for m in HTTPMethod) - {"get", "head", "options", "trace", "connect"}
ERROR_REF = {"$ref": "#/components/schemas/Error"}
SCHEME = "TokenAuth"  # ninja names the scheme after the auth class

ERROR_SCHEMA = {
    "title": "Error",
    "type": "object",
    "description": "Every failure: a stable `code` for programs and a `message` for people.",
    "required": ["code", "message"],
    "properties": {
        "code": {"type": "string", "description": "Stable; see the table of codes in the docs."},
        "message": {"type": "string"},
        "errors": {
            "type": "array",
            "description": "With `bad_request`: each parameter that is not valid.",
            "items": {
                "type": "object",
                "properties": {"where": {"type": "string"}, "message": {"type": "string"}},
            },
        },
    },
}
PAGE_SCHEMA = {
    "title": "Page",
    "type": "object",
    "description": "One page of a cursor-paged list: pass `next_cursor` back as `cursor`.",
    "required": ["data", "next_cursor"],
    "properties": {
        "data": {"type": "array", "items": {}},
        "next_cursor": {"type": ["string", "null"], "description": "`null` on the last page."},
    },
}

_RETRY_AFTER = {
    "description": "Seconds to wait before asking again.",
    "schema": {"type": "integer", "minimum": 1},
}
# Why each status can answer, and the headers it carries: (description, headers, required).
_ERRORS = {
    400: ("Bad input: a parameter, the body, the search or a session id (`code` says which).",),
    401: (
        "No valid token (missing, wrong, revoked or expired).",
        {"WWW-Authenticate": {"schema": {"type": "string"}, "required": True}},
    ),
    403: ("Your role on this endpoint may not do this, or the token is read-only.",),
    404: ("No such endpoint, session or item, or one you may not see (the same answer).",),
    409: ("The change conflicts with the state it found (Hermes or the dashboard refused it).",),
    413: ("The body is larger than the dashboard or Hermes accepts.",),
    422: ("This `Idempotency-Key` was already used for another change; nothing was done.",),
    429: (
        "Too many requests by this person (all their tokens), or downloads at once.",
        {"Retry-After": {**_RETRY_AFTER, "required": True}},
    ),
    502: ("Hermes failed or answered something unexpected; `code` is its code.",),
    503: (
        "Hermes is busy, unavailable or has no session API, or the dashboard's database is.",
        {"Retry-After": {**_RETRY_AFTER, "required": False}},
    ),
    504: ("Hermes did not answer in time.",),
}
SESSION_ID_HELP = (
    "A Hermes session id, as one path segment: percent-encode `/`, `%`, space and `#` "
    "(and `?`); the dashboard decodes it before routing. Ids holding `{`, `}`, a line "
    "break or NUL are refused (`400 invalid_session_id`)."
)
SESSION_ID_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_ID_LENGTH,
    "pattern": "^[^{}\\r\\n\\x00]+$",
}
IDEMPOTENCY_KEY = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": True,
    "description": (
        "New for each intended change: a repeat of the key with the same body replays "
        "the first answer; the key reused for another change is a 422."
    ),
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{16,64}$"},
}
# One Server-Sent Event, as Schemathesis and clients parse it: every event has an id to
# resume after (``Last-Event-ID``); ``data`` is the page's fragment or JSON text.
SSE_EVENT = {
    "type": "object",
    "required": ["id", "data"],
    "properties": {
        "id": {"type": "string"},
        "event": {"type": "string"},
        "data": {"type": "string"},
        "retry": {"type": "integer"},
    },
}
LAST_EVENT_ID = {
    "in": "header",
    "name": "Last-Event-ID",
    "required": False,
    "description": "Resume: only the events after this one, then the live ones.",
    "schema": {"type": "string", "pattern": f"^[0-9]{{1,{MAX_CURSOR_DIGITS}}}$"},
}
_PARAMETER_HELP = {
    "cursor": "Opaque: the `next_cursor` of the previous page; empty for the first page.",
    "limit": "Rows per page.",
}
_PATH_PARAM = re.compile(r"{([^}]+)}")
# Outside an endpoint's paths, what reads Hermes: an uncertain write's reconcile.
_RECONCILES = "/outcomes/{"
LOCATION = {
    "description": "Where to ask next: the write's outcome, or the job.",
    "required": True,
    "schema": {"type": "string"},
}


def _iso_only(value):
    if isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError("a date as YYYY-MM-DD")
    return value


# A date parameter that takes what its document says (``format: date``), not also the
# numbers pydantic would read as Unix times.
IsoDate = Annotated[date, BeforeValidator(_iso_only)]


# Rules a body's text meets, declared for clients and Schemathesis but checked by the
# page's form, as before: after the door, so a person who may not see the endpoint
# still learns nothing but its 404. ``Comment``: not blank (the form strips it) and
# no NUL; ``Line``: no control character at all.
def _declared(**rules) -> Any:
    return Field(json_schema_extra=rules)


_CC = r"\x00-\x1f\x7f-\x9f"
Comment = Annotated[str, _declared(pattern=r"^[^\x00]*[^\s\x00][^\x00]*$")]
Line = Annotated[str, _declared(pattern=rf"^[^{_CC}]*[^\s{_CC}][^{_CC}]*$")]
# ``Text``: any text but NUL, which Django's CharField refuses (a form's own rules, such
# as a title's length after cleaning, stay undeclared).
Text = Annotated[str, _declared(pattern=r"^[^\x00]*$")]
# A session id named in a body: the selection's rule (``hermes.ids.check_path_id``).
SessionId = Annotated[str, _declared(pattern=r"^[^\r\n\x00]+$")]
# What travels on as an HTTP header value: printable ASCII, checked at once (anything
# else broke the relay's request to Hermes).
HeaderText = Annotated[str, Field(pattern=r"^[\x20-\x7e]*$")]


class DocumentedApi(NinjaAPI):
    """A NinjaAPI whose document declares what its shared code answers (made once)."""

    def get_openapi_operation_id(self, operation) -> str:
        """The view's name (``search``, ``tag_add``), not its module path: a generated
        client's method names."""
        return operation.view_func.__name__

    def get_openapi_schema(self, *, path_prefix=None, path_params=None):
        made = getattr(self, "_documents", None)
        if made is None:
            made = self._documents = {}
        key = path_prefix if path_prefix is not None else repr(sorted((path_params or {}).items()))
        if key not in made:
            schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
            made[key] = complete(schema)
        return made[key]


def complete(schema):
    """``schema`` with every operation's failures, headers and security declared."""
    components = schema.setdefault("components", {})
    components.setdefault("schemas", {})["Error"] = copy.deepcopy(ERROR_SCHEMA)
    components["schemas"]["Page"] = copy.deepcopy(PAGE_SCHEMA)
    components.setdefault("securitySchemes", {})[SCHEME] = {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "hui_<key id>_<secret>",
        "description": "A personal API token (/account/tokens/); a write needs the write scope.",
    }
    for path, methods in schema.get("paths", {}).items():
        for method, operation in methods.items():
            if method in {"get", *WRITES}:
                _operation(path, method, operation)
    return schema


def _operation(path: str, method: str, operation: dict) -> None:
    operation["security"] = [{SCHEME: []}]
    parameters = operation.setdefault("parameters", [])
    for parameter in parameters:
        if parameter.get("in") == "path" and parameter["name"] == "session_id":
            parameter["description"] = SESSION_ID_HELP
            parameter["schema"] = {**parameter.get("schema", {}), **SESSION_ID_SCHEMA}
        elif parameter.get("in") == "query" and parameter["name"] in _PARAMETER_HELP:
            parameter.setdefault("description", _PARAMETER_HELP[parameter["name"]])
    if method in WRITES:
        parameters[:] = [p for p in parameters if p.get("name", "").lower() != "idempotency-key"]
        parameters.append(copy.deepcopy(IDEMPOTENCY_KEY))
    # ninja keys its responses by int; a second "200" beside 200 would be a duplicated
    # key in the JSON (swagger-ui refuses the document).
    responses = {str(status): answer for status, answer in operation.get("responses", {}).items()}
    operation["responses"] = responses
    if any(p.get("name") == "cursor" and p.get("in") == "query" for p in parameters):
        ok = responses.setdefault("200", {"description": "OK"})
        ok.setdefault(
            "content", {"application/json": {"schema": {"$ref": "#/components/schemas/Page"}}}
        )
    for status in _statuses(path, method, operation):
        responses.setdefault(str(status), _error(status))
    for answer in responses.values():
        if "text/event-stream" in answer.get("content", {}):
            answer["content"]["text/event-stream"] = {"schema": copy.deepcopy(SSE_EVENT)}
            if method == "get" and not any(p["name"] == "Last-Event-ID" for p in parameters):
                parameters.append(copy.deepcopy(LAST_EVENT_ID))
    if "202" in responses:  # an uncertain outcome or a job: where to ask next
        responses["202"].setdefault("headers", {}).setdefault("Location", LOCATION)


def _statuses(path: str, method: str, operation: dict) -> list[int]:
    """What the shared code can answer here: the token (401, 429), the role (403) and the
    database (503) always; 400 to any input; 404 where the path names something; writes'
    key and conflicts; Hermes' failures where Hermes is read."""
    found = {401, 403, 429, 503}
    named = _PATH_PARAM.findall(path)
    if operation.get("parameters") or operation.get("requestBody") or method in WRITES:
        found.add(400)
    if named:
        found.add(404)
    if method in WRITES:
        found |= {409, 413, 422}
    if "endpoint" in named or _RECONCILES in path:
        found |= {502, 504}
    return sorted(found)


def _error(status: int) -> dict:
    description, *rest = _ERRORS[status]
    answer: dict = {
        "description": description,
        "content": {"application/json": {"schema": ERROR_REF}},
    }
    if rest:
        answer["headers"] = copy.deepcopy(rest[0])
    return answer
