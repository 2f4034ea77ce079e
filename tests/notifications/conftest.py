from tests.deletion.conftest import clock  # noqa: F401 (fixture)
from tests.review.access_world import review_world  # noqa: F401 (fixture)
from tests.support.smtp_inbox import smtp_inbox  # noqa: F401 (fixture)
