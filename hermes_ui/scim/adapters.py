"""django-scim2 adapters: SCIM Users onto Django's users, SCIM Groups onto ``IdpGroup``.

An adapter only translates SCIM JSON (RFC 7643 §4) to rows and back; what a
change does beyond its row (ending sessions, memberships, the audit trail) is
in ``provisioning``. PATCH (RFC 7644 §3.5.2) is parsed here rather than by
django-scim2, which neither takes Entra ID's string booleans nor removes a
member by a ``members[value eq "…"]`` path.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator
from django.db import transaction
from django.urls import reverse
from django_scim import constants
from django_scim.adapters import SCIMGroup, SCIMUser
from django_scim.exceptions import BadRequestError, IntegrityError
from django_scim.models import SCIMServiceProviderConfig

from hermes_ui.access.models import IdpGroup, Membership, Origin
from hermes_ui.scim import provisioning
from hermes_ui.scim.models import ScimGroup, ScimUser

MAX_RESULTS = 200
_MEMBER = re.compile(r'members\[\s*value\s+eq\s+"([^"]*)"\s*\]', re.IGNORECASE)
_USER_URN = constants.SchemaURI.USER.lower() + ":"
_GROUP_URN = constants.SchemaURI.GROUP.lower() + ":"


def base_location(request=None, *args, **kwargs) -> str:
    """Where /scim/v2/ is, as the identity provider reached it (for ``meta.location``)."""
    if request is None:
        return ""
    return f"{request.scheme}://{request.get_host()}"


def as_bool(value, name: str) -> bool:
    """A SCIM boolean; Entra ID sends ``"True"``/``"False"`` as strings."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise BadRequestError(f'"{name}" must be true or false', scim_type="invalidValue")


def text(value, name: str, limit: int) -> str:
    if value is None:
        return ""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise BadRequestError(f'"{name}" must be a string', scim_type="invalidValue")
    value = str(value).strip()
    if len(value) > limit:
        raise BadRequestError(
            f'"{name}" is longer than {limit} characters', scim_type="invalidValue"
        )
    return value


def _operations(operations):
    """(op, path or None, value) for each PATCH operation, or a 400 for a malformed one."""
    if not isinstance(operations, list):
        raise BadRequestError('"Operations" must be a list', scim_type="invalidSyntax")
    for operation in operations:
        if not isinstance(operation, dict):
            raise BadRequestError("each operation must be an object", scim_type="invalidSyntax")
        op = str(operation.get("op", "")).lower()
        if op not in constants.VALID_PATCH_OPS:
            raise BadRequestError('"op" must be add, remove or replace', scim_type="invalidSyntax")
        path, value = operation.get("path"), operation.get("value")
        if path in (None, ""):
            if op == "remove":
                raise BadRequestError("a remove needs a path", scim_type="noTarget")
            if not isinstance(value, dict):
                raise BadRequestError(
                    "without a path the value must be an object", scim_type="invalidSyntax"
                )
            for key, each in value.items():
                yield op, str(key), each
        elif not isinstance(path, str):
            raise BadRequestError('"path" must be a string', scim_type="invalidPath")
        else:
            yield op, path.strip(), value


class _Linked:
    """What a SCIM User and Group share: the row holding their SCIM id (created on first
    use), the body check, and PATCH as one ``_patch`` per operation, then one save."""

    id_field = "scim__scim_id"
    link_model: type  # ScimUser or ScimGroup, one-to-one with the adapted object
    link_field: str  # its field naming that object

    def link(self):
        if self._link is None:
            self._link, _ = self.link_model.objects.get_or_create(**{self.link_field: self.obj})
        return self._link

    @property
    def id(self):
        return self.link().scim_id

    def validate_dict(self, d):
        if not isinstance(d, dict):
            raise BadRequestError("the body must be a JSON object", scim_type="invalidSyntax")

    def handle_operations(self, operations):
        """PATCH (RFC 7644 §3.5.2) in Okta's shape (no path, a value object) and Entra ID's."""
        for op, path, value in _operations(operations):
            self._patch(op, path, value)
        self.save()


class ScimUserAdapter(_Linked, SCIMUser):
    """A Django user as a SCIM User; its SCIM id and externalId are in ``ScimUser``."""

    link_model, link_field = ScimUser, "user"

    def __init__(self, obj, request=None):
        super().__init__(obj, request=request)
        self._link = None
        self._external_id = None  # a new externalId to keep at save()
        self._before = self._snapshot() if obj.pk else None
        self._adopted = False

    def _snapshot(self):
        u = self.obj
        return {
            "userName": u.username,
            "name": (u.first_name, u.last_name),
            "emails": u.email,
            "active": u.is_active,
        }

    @property
    def emails(self):
        return (
            [{"value": self.obj.email, "primary": True, "type": "work"}] if self.obj.email else []
        )

    @property
    def groups(self):
        found = Membership.objects.filter(
            user=self.obj, origin=Origin.SCIM, group__scim__isnull=False
        ).values_list("group__scim__scim_id", "group__name")
        return [
            {"value": gid, "display": name, "$ref": _location(self.request, "scim:groups", gid)}
            for gid, name in found
        ]

    def to_dict(self):
        link = self.link()
        d = {
            "schemas": [constants.SchemaURI.USER],
            "id": link.scim_id,
            "userName": self.obj.username,
            "name": {
                "givenName": self.obj.first_name,
                "familyName": self.obj.last_name,
                "formatted": self.name_formatted,
            },
            "displayName": self.display_name,
            "emails": self.emails,
            "active": self.obj.is_active,
            "groups": self.groups,
            "meta": {
                "resourceType": "User",
                "created": self.obj.date_joined.isoformat(),
                "lastModified": link.updated_at.isoformat(),
                "location": self.location,
            },
        }
        if link.external_id:
            d["externalId"] = link.external_id
        return d

    def from_dict(self, d):
        """POST and PUT (RFC 7644 §3.3, §3.5.1): the attributes we keep, the rest ignored."""
        external_id = text(d.get("externalId"), "externalId", 255)
        if self.obj.pk is None:
            existing = provisioning.sso_account(external_id)
            if existing is not None and not ScimUser.objects.filter(user=existing).exists():
                # Signed in by SSO before being provisioned: the same person, one account.
                self.obj, self._adopted = existing, True
                self._before = self._snapshot()
        self._set_username(d.get("userName"))
        name = d.get("name") or {}
        if not isinstance(name, dict):
            raise BadRequestError('"name" must be an object', scim_type="invalidValue")
        self.obj.first_name = text(name.get("givenName"), "name.givenName", 150)
        self.obj.last_name = text(name.get("familyName"), "name.familyName", 150)
        self.obj.email = ""
        if d.get("emails"):
            self.set_emails(d["emails"])
        if "active" in d:
            self.obj.is_active = as_bool(d["active"], "active")
        elif self.obj.pk is None:
            self.obj.is_active = True
        self._external_id = external_id
        # A password in the body is ignored: people sign in through single sign-on.

    def _set_username(self, value):
        username = text(value, "userName", 150)
        if not username:
            raise BadRequestError('"userName" is required', scim_type="invalidValue")
        clash = type(self.obj).objects.filter(username__iexact=username).exclude(pk=self.obj.pk)
        if clash.exists():
            raise IntegrityError(f"userName {username!r} is taken", scim_type="uniqueness")
        self.obj.username = username

    def set_emails(self, value):
        """The primary address of a SCIM ``emails`` list (or OneLogin's single object)."""
        if isinstance(value, dict):
            value = [value]
        if isinstance(value, str):
            value = [{"value": value}]
        if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
            raise BadRequestError('"emails" must be a list of objects', scim_type="invalidValue")
        chosen = [e for e in value if e.get("primary") in (True, "true", "True")] or value
        address = text(chosen[0].get("value") if chosen else "", "emails.value", 254)
        if address:
            try:
                EmailValidator()(address)
            except ValidationError:
                raise BadRequestError("not an email address", scim_type="invalidValue") from None
        self.obj.email = address

    def _patch(self, op: str, path: str, value) -> None:
        key = path.lower()
        if key.startswith(_USER_URN):
            key = key[len(_USER_URN) :]
        remove = op == "remove"
        if key == "active":
            if remove:
                raise BadRequestError('"active" cannot be removed', scim_type="mutability")
            self.obj.is_active = as_bool(value, "active")
        elif key == "username":
            if remove:
                raise BadRequestError('"userName" cannot be removed', scim_type="mutability")
            self._set_username(value)
        elif key == "externalid":
            self._external_id = "" if remove else text(value, "externalId", 255)
        elif key == "name":
            parts = {} if remove else value
            if not isinstance(parts, dict):
                raise BadRequestError('"name" must be an object', scim_type="invalidValue")
            parts = {k.lower(): v for k, v in parts.items()}
            if remove or "givenname" in parts:
                self.obj.first_name = text(parts.get("givenname"), "name.givenName", 150)
            if remove or "familyname" in parts:
                self.obj.last_name = text(parts.get("familyname"), "name.familyName", 150)
        elif key == "name.givenname":
            self.obj.first_name = "" if remove else text(value, "name.givenName", 150)
        elif key == "name.familyname":
            self.obj.last_name = "" if remove else text(value, "name.familyName", 150)
        elif key == "emails" or key.startswith(("emails[", "emails.")):
            if remove or value in (None, "", []):
                self.obj.email = ""
            else:
                self.set_emails(value)
        # Anything else (displayName, title, phoneNumbers, the enterprise extension...)
        # is accepted and ignored: nothing in the dashboard reads it.

    def save(self):
        created = self.obj.pk is None
        with transaction.atomic():
            if created:
                self.obj.set_unusable_password()
            self.obj.save()
            link = self.link()
            if self._external_id is not None:
                link.external_id = self._external_id
            link.save()
            after = self._snapshot()
            if self._external_id:
                provisioning.link_sso(self.obj, self._external_id)
            if created or self._adopted:
                provisioning.audit(
                    "user_create",
                    account=self.obj.username,
                    scim_id=link.scim_id,
                    active=self.obj.is_active,
                )
            else:
                changed = sorted(k for k in after if k != "active" and after[k] != self._before[k])
                if changed:
                    provisioning.audit(
                        "user_update",
                        account=self.obj.username,
                        scim_id=link.scim_id,
                        fields=changed,
                    )
            if not created and self._before["active"] and not self.obj.is_active:
                provisioning.deactivated(self.obj, link.scim_id)
            elif not created and not self._before["active"] and self.obj.is_active:
                provisioning.reactivated(self.obj, link.scim_id)
            self._before = after
            self._external_id, self._adopted = None, False

    def delete(self):
        """DELETE (RFC 7644 §3.6): the account is deactivated and forgets its SCIM id.

        The row stays: the audit trail, approvals and notes name it.
        """
        user = self.obj
        with transaction.atomic():
            scim_id = self.id
            if user.is_active:
                user.is_active = False
                user.save(update_fields=["is_active"])
                provisioning.deactivated(user, scim_id)
            ScimUser.objects.filter(user=user).delete()
            provisioning.audit("user_delete", account=user.username, scim_id=scim_id)


class ScimGroupAdapter(_Linked, SCIMGroup):
    """An ``IdpGroup`` as a SCIM Group; its members are the memberships of origin ``scim``."""

    link_model, link_field = ScimGroup, "group"

    def __init__(self, obj, request=None):
        super().__init__(obj, request=request)
        self._link = None
        self._external_id = None
        self._members = None  # users to make the SCIM members at save() (POST, PUT)
        self._old_name = obj.name if obj.pk else None
        self._adopted = False

    @property
    def members(self):
        found = Membership.objects.filter(
            group=self.obj, origin=Origin.SCIM, user__scim__isnull=False
        ).values_list("user__scim__scim_id", "user__username")
        return [
            {"value": uid, "display": name, "$ref": _location(self.request, "scim:users", uid)}
            for uid, name in found.order_by("user__username")
        ]

    def to_dict(self):
        link = self.link()
        d = {
            "schemas": [constants.SchemaURI.GROUP],
            "id": link.scim_id,
            "displayName": self.obj.name,
            "meta": {
                "resourceType": "Group",
                "lastModified": link.updated_at.isoformat(),
                "location": self.location,
            },
        }
        if not _excluded(self._request, "members"):
            d["members"] = self.members
        if link.external_id:
            d["externalId"] = link.external_id
        return d

    def from_dict(self, d):
        """POST and PUT: the name, externalId and (replacing them) the members."""
        self._rename(d.get("displayName"))
        self._external_id = text(d.get("externalId"), "externalId", 255)
        self._members = self._users(d.get("members") or [])

    def _rename(self, value):
        name = text(value, "displayName", 200)
        if not name:
            raise BadRequestError('"displayName" is required', scim_type="invalidValue")
        clash = IdpGroup.objects.filter(name=name).exclude(pk=self.obj.pk).first()
        if clash is not None:
            # A group first seen in an SSO claim is the same group: SCIM adopts it.
            if self.obj.pk is None and not ScimGroup.objects.filter(group=clash).exists():
                self.obj = clash
                self._old_name = clash.name
                self._adopted = True
                return
            raise IntegrityError(f"displayName {name!r} is taken", scim_type="uniqueness")
        self.obj.name = name

    def _users(self, value) -> list:
        """The people a ``members`` value names by their SCIM id; 400 for an unknown one."""
        if isinstance(value, dict):
            value = [value]
        if not isinstance(value, list) or not all(
            isinstance(m, dict) and isinstance(m.get("value"), str) for m in value
        ):
            raise BadRequestError(
                '"members" must be a list of {"value": id}', scim_type="invalidValue"
            )
        ids = {m["value"] for m in value}
        found = {
            link.scim_id: link.user
            for link in ScimUser.objects.filter(scim_id__in=ids).select_related("user")
        }
        missing = ids - set(found)
        if missing:
            raise BadRequestError(f"no such user: {sorted(missing)[0]}", scim_type="invalidValue")
        return list(found.values())

    def _patch(self, op: str, path: str, value) -> None:
        key = path.lower()
        if key.startswith(_GROUP_URN):
            key = key[len(_GROUP_URN) :]
        one = _MEMBER.fullmatch(path)
        if one:
            if op != "remove":
                raise BadRequestError(
                    "a member filter path is only for remove", scim_type="invalidPath"
                )
            found = ScimUser.objects.filter(scim_id=one.group(1)).values_list("user", flat=True)
            provisioning.remove_members(self.obj, list(found), self.id)
        elif key == "members":
            if op == "remove" and value in (None, []):
                provisioning.remove_members(self.obj, None, self.id)
                return
            users = self._users(value if value is not None else [])
            if op == "add":
                provisioning.add_members(self.obj, users, self.id)
            elif op == "remove":
                provisioning.remove_members(self.obj, [u.pk for u in users], self.id)
            else:
                provisioning.set_members(self.obj, users, self.id)
        elif key == "displayname":
            if op == "remove":
                raise BadRequestError('"displayName" cannot be removed', scim_type="mutability")
            self._rename(value)
        elif key == "externalid":
            self._external_id = "" if op == "remove" else text(value, "externalId", 255)
        # "id" (Okta repeats it in a rename) and anything else: ignored.

    def save(self):
        created = self.obj.pk is None
        with transaction.atomic():
            self.obj.save()
            link = self.link()
            if self._external_id is not None:
                link.external_id = self._external_id
            link.save()
            if created or self._adopted:
                provisioning.audit("group_create", group=self.obj.name, scim_id=link.scim_id)
            elif self._old_name != self.obj.name:
                provisioning.audit(
                    "group_update",
                    group=self.obj.name,
                    old_group=self._old_name,
                    scim_id=link.scim_id,
                )
            if self._members is not None:
                provisioning.set_members(self.obj, self._members, link.scim_id)
            self._old_name, self._members, self._external_id = self.obj.name, None, None
            self._adopted = False

    def delete(self):
        """DELETE: the SCIM members and id go; the group itself too unless something else
        holds it (a grant an admin gave it, or members from SSO claims)."""
        group = self.obj
        with transaction.atomic():
            scim_id = self.id
            provisioning.remove_members(group, None, scim_id)
            ScimGroup.objects.filter(group=group).delete()
            kept = group.grants.exists() or Membership.objects.filter(group=group).exists()
            if not kept:
                group.delete()
            provisioning.audit("group_delete", group=group.name, scim_id=scim_id, kept=kept)


class ServiceProviderConfig(SCIMServiceProviderConfig):
    """RFC 7643 §5: what this service provider does (no bulk, sort, etag or passwords)."""

    def to_dict(self):
        d = super().to_dict()
        d["filter"] = {"supported": True, "maxResults": MAX_RESULTS}
        d["changePassword"] = {"supported": False}
        d["documentationUri"] = None
        return d


def _location(request, name: str, scim_id: str) -> str:
    return urljoin(base_location(request), reverse(name, kwargs={"uuid": scim_id}))


def _excluded(request, attribute: str) -> bool:
    """``excludedAttributes=members`` (RFC 7644 §3.4.2.5), which Entra ID sends for groups."""
    if request is None:
        return False
    names = request.GET.get("excludedAttributes", "")
    return attribute.lower() in {n.strip().lower() for n in names.split(",")}
