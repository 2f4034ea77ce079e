"""Comparing two sessions side by side, and reviewers' verdicts on forks."""
