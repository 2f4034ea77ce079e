"""From the provider's claims to a dashboard role: the highest mapped role wins."""

from hermes_ui.sso.config import ROLES


def groups_of(claims: dict, claim: str) -> list[str]:
    """The claim's values as strings: a list, or one string (some providers send one group)."""
    value = claims.get(claim)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [item for item in value if isinstance(item, str)]
    return []


def mapped_role(groups: list[str], mapping: dict) -> str | None:
    roles = {mapping[group] for group in groups if group in mapping}
    return max(roles, key=ROLES.index, default=None)
