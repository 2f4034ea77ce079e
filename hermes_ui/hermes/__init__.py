"""Everything that speaks HTTP to a Hermes API server lives in this package."""

from hermes_ui.hermes.client import HermesClient, client_for
from hermes_ui.hermes.errors import HermesError, Outcome

__all__ = ["HermesClient", "HermesError", "Outcome", "client_for"]
