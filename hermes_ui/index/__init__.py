"""The dashboard's own index of Hermes sessions, and its memory of forks it made."""
