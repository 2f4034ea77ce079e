"""Benchmarks that print figures (never timed assertions): ``python manage.py bench``."""
