"""Models for what the dashboard itself owns. Hermes data stays in Hermes."""

from django.db import models


class SeenSource(models.Model):
    """A ``source`` value seen in an endpoint's session list, offered as a filter.

    The API has no "distinct sources" call, so the filter offers the values
    the dashboard has actually seen on that endpoint.
    """

    endpoint = models.CharField(max_length=40)
    source = models.CharField(max_length=200)
    last_seen = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "source"], name="uniq_seen_source")
        ]
        ordering = ["source"]

    def __str__(self):
        return f"{self.endpoint}:{self.source}"
