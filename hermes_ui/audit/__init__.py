"""The dashboard's replay boundary and trail: idempotency records and audit events."""
