"""What operators watch: ``/metrics`` for Prometheus and the request timings behind it.

The series the code pushes are defined in ``hermes_ui/platform/metrics.py``;
``collector`` reads the ones that live in the database at scrape time.
"""
