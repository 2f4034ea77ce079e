"""Background work on django-tasks with its database backend (django-tasks-db).

The queue is a table of the dashboard's own database (``django_tasks_db``),
so SQLite (``make run``) and PostgreSQL both work without a new server. A
feature declares a task with ``django_tasks.task`` and enqueues it; the
``task_worker`` command (started beside the web process by ``make run`` and
``make serve``) runs them. This package adds what the framework leaves to the
project: a heartbeat row per worker (``models.WorkerBeat``), whether any
worker is alive (``liveness``), and putting back in the queue a task whose
worker died while running it (``recovery``). See docs/background-work.md.
"""
