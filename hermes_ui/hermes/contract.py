"""The API contract's names: the nine operations and the optional features.

As ``/v1/capabilities`` reports them (``endpoints`` and ``features``). Plain
constants at the bottom layer, so the endpoints page, the chat box and the
integration check all read the same list without importing each other.
"""

from __future__ import annotations

STREAMING = "session_chat_streaming"
FORK = "session_fork"
# The contract's nine operations, by the names ``endpoints`` reports them under.
CONTRACT_OPERATIONS = (
    "sessions",
    "session_create",
    "session",
    "session_update",
    "session_delete",
    "session_messages",
    "session_fork",
    "session_chat",
    "session_chat_stream",
)


def missing_operations(operations) -> list[str]:
    return [name for name in CONTRACT_OPERATIONS if name not in set(operations or ())]


# A session row's usage counters: token counts, then costs (US dollars).
USAGE_TOKENS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)
USAGE_COSTS = ("estimated_cost_usd", "actual_cost_usd")
USAGE_COUNTERS = (*USAGE_TOKENS, *USAGE_COSTS)
