"""The SCIM endpoints: django-scim2's views, behind the bearer door, with our lookups.

What changes from django-scim2: a person or group is found by the SCIM id in
its one-to-one row; break-glass superusers are never listed or changed; lists
are counted and paged in the database; a body that is not a JSON object is a
400, never a 500.
"""

from __future__ import annotations

import json

from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ObjectDoesNotExist, RequestDataTooBig
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt
from django_scim import exceptions
from django_scim import views as scim
from django_scim.constants import SCIM_CONTENT_TYPE

from hermes_ui.scim.adapters import MAX_RESULTS
from hermes_ui.scim.filters import GroupFilter, UserFilter


class _Lookups:
    """Find by SCIM id, list by the filter class's rows, page in the database."""

    rows: type = object  # the filter class whose ``base()`` is every row this view may touch

    def get_object(self):
        scim_id = self.kwargs.get(self.lookup_url_kwarg) or ""
        try:
            return self.rows.base().get(scim__scim_id=scim_id)
        except ObjectDoesNotExist:
            raise exceptions.NotFoundError(scim_id) from None

    def get_many(self, request):
        query = request.GET.get("filter")
        if query:
            return self._search(request, query, *self._page(request))
        return self._build_response(request, self.rows.base().order_by("pk"), *self._page(request))

    def _page(self, request):
        """startIndex and count (RFC 7644 §3.4.2.4): out-of-range values are clamped."""
        try:
            start = int(request.GET.get("startIndex", 1))
            count = int(request.GET.get("count", 100))
        except ValueError:
            raise exceptions.BadRequestError(
                "startIndex and count must be integers", scim_type="invalidValue"
            ) from None
        return min(max(start, 1), 2**31), min(max(count, 0), MAX_RESULTS)

    def _search(self, request, query, start, count):
        try:
            rows = self.rows.search(query, request)
        except Exception as error:  # the parser raises several kinds for a bad filter
            raise exceptions.BadRequestError(
                f"Invalid filter: {error}", scim_type="invalidFilter"
            ) from None
        return self._build_response(request, rows, start, count)

    def _build_response(self, request, rows, start, count):
        total = rows.count()
        page = list(rows[start - 1 : start - 1 + count])
        resources = [self.scim_adapter(row, request=request).to_dict() for row in page]
        doc = {
            "schemas": [scim.constants.SchemaURI.LIST_RESPONSE],
            "totalResults": total,
            "itemsPerPage": len(resources),
            "startIndex": start,
            "Resources": resources,
        }
        return HttpResponse(json.dumps(doc), content_type=SCIM_CONTENT_TYPE)

    def post(self, request, *args, **kwargs):
        _read_body(request)
        return super().post(request, *args, **kwargs)

    def put(self, request, *args, **kwargs):
        _read_body(request)
        return super().put(request, *args, **kwargs)

    def patch(self, request, *args, **kwargs):
        _read_body(request)
        return super().patch(request, *args, **kwargs)

    def load_body(self, body):
        loaded = super().load_body(body)
        if not isinstance(loaded, dict):
            raise exceptions.BadRequestError(
                "the body must be a JSON object", scim_type="invalidSyntax"
            )
        return loaded


def _read_body(request) -> None:
    """A body over DATA_UPLOAD_MAX_MEMORY_SIZE is a 413 SCIM error, not a 500."""
    try:
        request.body  # noqa: B018 - read (and size-checked) once, kept by Django
    except RequestDataTooBig:
        raise exceptions.SCIMException("the request body is too large", status=413) from None


class UsersView(_Lookups, scim.UsersView):
    rows = UserFilter


class UserSearchView(_Lookups, scim.UserSearchView):
    rows = UserFilter


class GroupsView(_Lookups, scim.GroupsView):
    rows = GroupFilter


class GroupSearchView(_Lookups, scim.GroupSearchView):
    rows = GroupFilter


def open_view(view_class, **initkwargs):
    """The view, let past the login and CSRF checks: the bearer door is its only check."""
    return login_not_required(csrf_exempt(view_class.as_view(**initkwargs)))


users = open_view(UsersView)
users_search = open_view(UserSearchView)
groups = open_view(GroupsView)
groups_search = open_view(GroupSearchView)
service_provider_config = open_view(scim.ServiceProviderConfigView)
resource_types = open_view(scim.ResourceTypesView)
schemas = open_view(scim.SchemasView)
not_implemented = open_view(scim.SCIMView, implemented=False)
