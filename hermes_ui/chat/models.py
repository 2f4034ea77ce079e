"""Turns in flight and their retained events (owned by the chat feature)."""
