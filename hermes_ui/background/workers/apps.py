from django.apps import AppConfig


class TasksConfig(AppConfig):
    """The task worker's heartbeat rows and the recovery of tasks of dead workers."""

    name = "hermes_ui.background.workers"
    label = "hermes_tasks"
    verbose_name = "Task workers"
