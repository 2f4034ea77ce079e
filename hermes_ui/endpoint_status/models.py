"""The last probe of each endpoint: what it said about itself, never any session data."""

from django.db import models


class EndpointProbe(models.Model):
    endpoint = models.CharField(max_length=40)
    # With ``endpoint``, which Hermes was probed (``Endpoint.fingerprint``): a
    # re-pointed id starts without capabilities, not with another server's.
    endpoint_fp = models.CharField(max_length=16)
    checked_at = models.DateTimeField()
    reachable = models.BooleanField(default=False)
    version = models.CharField(max_length=60, blank=True)
    # True: the key was accepted; False: refused (401); None: not known.
    key_accepted = models.BooleanField(null=True)
    error_code = models.CharField(max_length=60, blank=True)
    # ``/v1/capabilities`` as reported: the ``features`` flags and endpoint names.
    features = models.JSONField(default=dict, blank=True)
    operations = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "endpoint_fp"], name="uniq_probe")
        ]

    def __str__(self):
        return f"probe {self.endpoint} reachable={self.reachable}"
