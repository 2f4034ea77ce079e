"""Everything that speaks HTTP to a Hermes API server lives in this package."""

from hermes_ui.hermes.client import HermesClient, client_for
from hermes_ui.hermes.errors import HermesError, Outcome
from hermes_ui.hermes.session import Session, is_closed

__all__ = ["HermesClient", "HermesError", "Outcome", "Session", "client_for", "is_closed"]
