"""Continuing a session: chat turns, their state machine and the streaming relay."""
