from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "hermes_ui.audit"
    label = "audit"
    verbose_name = "Audit trail and idempotency"
