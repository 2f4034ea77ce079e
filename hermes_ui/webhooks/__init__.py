"""Webhooks: signed JSON deliveries of the dashboard's events to other tools."""
