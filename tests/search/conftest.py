"""Search fixtures: the lineage tests' isolated SVG cache, the peers the search tests use."""

from tests.lineage.conftest import isolated_svg_cache  # noqa: F401 (autouse fixture)
from tests.support.peers import archive_peer, fresh_peer_pair  # noqa: F401 (fixtures)
