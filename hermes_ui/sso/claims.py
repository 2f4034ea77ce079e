"""The provider's groups claim, read leniently: a list, or one string."""


def groups_of(claims: dict, claim: str) -> list[str]:
    """The claim's values as strings: a list, or one string (some providers send one group)."""
    value = claims.get(claim)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [item for item in value if isinstance(item, str)]
    return []
