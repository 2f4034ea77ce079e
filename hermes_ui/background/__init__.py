"""Work off the page request: jobs, the task workers, and the schedule of periodic work.

``jobs/`` (app label ``jobs``) holds the rows, runner and progress page of
user-started work; ``workers/`` (app label ``hermes_tasks``) the heartbeat,
recovery and outage wait of ``manage.py task_worker``; ``schedule.py`` the one
table of periodic work, run on django-tasks as self-queuing ``rounds``.
"""
