"""One real 0.19.0 server serving two profiles, as endpoints ``support`` and ``sales``."""

from tests.support.peers import profile_endpoints, profiles_peer  # noqa: F401 (fixtures)
