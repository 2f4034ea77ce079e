"""SCIM filters (RFC 7644 §3.4.2.2) as Django ``Q`` objects, over users and groups.

django-scim2's own parser writes raw SQL against the model's table; ours go
through scim2-filter-parser's Django transpiler, so a filter may follow the
one-to-one SCIM row (``externalId``) and the ORM quotes every value. The
transpiler silently drops an attribute it cannot map (``a and b`` would become
``a``), so every attribute a filter names is checked first: an unknown one is
a 400 ``invalidFilter``, never a wider answer.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Q
from django_scim.constants import SchemaURI
from scim2_filter_parser.attr_paths import AttrPath
from scim2_filter_parser.transpilers.django_q_object import get_query

from hermes_ui.access.models import IdpGroup, Origin

_MEMBER = "membership__user__scim__scim_id"


class _Filter:
    # (attribute, sub-attribute) -> ORM path; names are case-insensitive (RFC 7643 §2.1).
    fields: dict = {}
    schema = ""

    @classmethod
    def base(cls):
        raise NotImplementedError

    @classmethod
    def attr_map(cls) -> dict:
        found: dict[tuple, str] = {}
        for (attr, sub), orm in cls.fields.items():
            found[(attr, sub, None)] = orm
            found[(attr, sub, cls.schema)] = orm  # "urn:...:User:userName" names the same
        return found

    @classmethod
    def search(cls, filter_query: str, request=None):
        """The rows ``filter_query`` selects; ValueError for an attribute we do not filter on."""
        known = {(a.lower(), (s or "").lower()) for a, s in cls.fields}
        for path in AttrPath(filter_query, {}):
            if (path.attr_name.lower(), (path.sub_attr or "").lower()) not in known:
                raise ValueError(f"filtering on {path.attr_name!r} is not supported")
            if path.uri and path.uri.lower() != cls.schema.lower():
                raise ValueError(f"filtering on schema {path.uri!r} is not supported")
        q = get_query(filter_query, cls.attr_map())
        if q is None:
            raise ValueError("the filter names no attribute this service filters on")
        return cls.base().filter(_scim_members_only(q)).distinct().order_by("pk")


def _scim_members_only(q: Q) -> Q:
    """A group's SCIM members are its memberships of origin ``scim``, not SSO claims'."""
    for i, child in enumerate(q.children):
        if isinstance(child, Q):
            _scim_members_only(child)
        elif child[0].startswith(_MEMBER):  # type: ignore[index]
            q.children[i] = Q(child, membership__origin=Origin.SCIM)
    return q


class UserFilter(_Filter):
    schema = SchemaURI.USER
    fields = {
        ("userName", None): "username",
        ("id", None): "scim__scim_id",
        ("externalId", None): "scim__external_id",
        ("name", "familyName"): "last_name",
        ("name", "givenName"): "first_name",
        ("emails", None): "email",
        ("emails", "value"): "email",
        ("active", None): "is_active",
    }

    @classmethod
    def base(cls):
        # Break-glass superusers are never the identity provider's to change.
        return get_user_model().objects.filter(is_superuser=False)


class GroupFilter(_Filter):
    schema = SchemaURI.GROUP
    fields = {
        ("displayName", None): "name",
        ("id", None): "scim__scim_id",
        ("externalId", None): "scim__external_id",
        # Entra ID asks "id eq g and members[value eq u]" to see whether u is in g.
        ("members", "value"): _MEMBER,
        ("members", None): _MEMBER,
    }

    @classmethod
    def base(cls):
        return IdpGroup.objects.all()
