"""Hermes UI: a Django dashboard for the persisted sessions of Hermes Agent."""
