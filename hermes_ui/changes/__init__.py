"""Changing transcripts safely: rename and close, create, fork, and reconciling what happened."""
