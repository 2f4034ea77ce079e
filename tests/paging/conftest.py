from tests.api.conftest import bearer  # noqa: F401 (fixture)
from tests.chat.conftest import chat_db  # noqa: F401 (fixture)
from tests.support.peers import paging_endpoint, paging_peer  # noqa: F401 (fixtures)
