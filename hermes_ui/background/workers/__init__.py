"""The task workers: heartbeat rows, liveness, recovery of a dead worker's tasks, the outage wait.

django-tasks-db brings the queue and the worker loop; this package adds what
it leaves to the project. See docs/development/background.md.
"""
