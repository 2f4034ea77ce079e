"""Deletion requests and approvals (owned by the deletion feature)."""
