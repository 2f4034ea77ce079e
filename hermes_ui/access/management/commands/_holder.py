"""What the access commands share: the person or group named on the command line."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from hermes_ui.access.forms import check_group_name, find_person
from hermes_ui.access.models import IdpGroup


def add_holder_arguments(parser) -> None:
    parser.add_argument("name", metavar="USER", help="the person's username")
    parser.add_argument(
        "--group",
        action="store_true",
        help="USER names an identity-provider group instead (as the provider spells it)",
    )


def holder(name: str, *, group: bool, create: bool = False) -> dict:
    """``{"user": …}`` or ``{"group": …}`` for ``grants``; a CommandError if unknown."""
    try:
        if not group:
            return {"user": find_person(name)}
        name = check_group_name(name)
    except ValidationError as exc:
        raise CommandError(" ".join(exc.messages)) from None
    if create:
        return {"group": IdpGroup.objects.get_or_create(name=name)[0]}
    found = IdpGroup.objects.filter(name=name).first()
    if found is None:
        raise CommandError(f"There is no group {name!r}.")
    return {"group": found}


def label(found: dict) -> str:
    if "user" in found:
        return found["user"].get_username()
    return f"group {found['group'].name}"
