"""Deletion requests, four-eyes approvals and their execution."""
