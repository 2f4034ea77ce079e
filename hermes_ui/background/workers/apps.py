from django.apps import AppConfig


class TasksConfig(AppConfig):
    """The task worker's heartbeat rows and the recovery of tasks of dead workers."""

    name = "hermes_ui.background.workers"
    label = "hermes_tasks"
    verbose_name = "Task workers"

    def ready(self):
        from django_tasks_db.models import DBTaskResult

        from hermes_ui.background.workers import erase
        from hermes_ui.platform import erasers

        erasers.register(
            "task_records",
            "finished background task records",
            erase.erase,
            models=[DBTaskResult],
            held=erase.held,
        )
