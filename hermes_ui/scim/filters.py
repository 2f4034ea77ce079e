"""SCIM filters (RFC 7644 §3.4.2.2) as Django ``Q`` objects, over users and groups.

django-scim2's own parser writes raw SQL against the model's table; ours go
through scim2-filter-parser's Django transpiler, so a filter may follow the
one-to-one SCIM row (``externalId``) and the ORM quotes every value.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from scim2_filter_parser.transpilers.django_q_object import get_query

from hermes_ui.access.models import IdpGroup


class _Filter:
    attr_map: dict = {}

    @classmethod
    def base(cls):
        raise NotImplementedError

    @classmethod
    def search(cls, filter_query: str, request=None):
        """The rows ``filter_query`` selects; ValueError for an attribute we do not filter on."""
        q = get_query(filter_query, cls.attr_map)
        if q is None:
            raise ValueError("the filter names no attribute this service filters on")
        return cls.base().filter(q).distinct().order_by("pk")


class UserFilter(_Filter):
    # (attribute, sub-attribute, schema URI) -> ORM path; the transpiler lowercases names.
    attr_map = {
        ("userName", None, None): "username",
        ("id", None, None): "scim__scim_id",
        ("externalId", None, None): "scim__external_id",
        ("name", "familyName", None): "last_name",
        ("name", "givenName", None): "first_name",
        ("emails", None, None): "email",
        ("emails", "value", None): "email",
        ("active", None, None): "is_active",
    }

    @classmethod
    def base(cls):
        # Break-glass superusers are never the identity provider's to change.
        return get_user_model().objects.filter(is_superuser=False)


class GroupFilter(_Filter):
    attr_map = {
        ("displayName", None, None): "name",
        ("id", None, None): "scim__scim_id",
        ("externalId", None, None): "scim__external_id",
    }

    @classmethod
    def base(cls):
        return IdpGroup.objects.all()
