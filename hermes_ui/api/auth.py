"""Bearer tokens, and nothing else: no session cookie is read, so there is no CSRF surface.

The token's user becomes ``request.user`` for the request, so the feature
code the pages use (role checks, masking, audit) sees the person the token
belongs to, with their grants as they are now. A token limited to some
endpoints narrows that person's access for the request (``access.rules.narrow``),
so every later check sees those endpoints only; a token that reaches no endpoint
any more (its owner lost their grants there) is refused like a revoked one.
The routes ask ``access.scope.check`` themselves (``routes.common``): the
middleware that does it for the pages skips /api/, where the person is known
only here.
"""

from __future__ import annotations

from ninja.security.http import HttpBearer

from hermes_ui.access.rules import access_of, narrow
from hermes_ui.api.errors import ApiError
from hermes_ui.api_tokens import rate, tokens


class TokenAuth(HttpBearer):
    def __call__(self, request):
        # Not HttpBearer's own: under DEBUG it logs a header it does not understand,
        # and that header may be a token.
        scheme, _, value = (request.headers.get("Authorization") or "").partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            return None
        return self.authenticate(request, value.strip())

    def authenticate(self, request, token: str):
        found = tokens.authenticate(token)
        if found is None:
            return None
        if found.endpoints:
            narrow(found.user, found.endpoints)
            if not access_of(found.user).endpoint_ids():
                return None
        wait = rate.over_limit(found.user_id)
        if wait is not None:
            raise ApiError(
                429,
                "rate_limited",
                f"Your tokens made too many requests; try again in {wait} s.",
                headers={"Retry-After": str(wait)},
            )
        tokens.note_use(found)
        request.user = found.user
        request.api_token = found
        return found


def require_write(request) -> None:
    token = getattr(request, "api_token", None)
    if token is None or not token.write:
        raise ApiError(403, "read_only_token", "This token has the read scope only.")
