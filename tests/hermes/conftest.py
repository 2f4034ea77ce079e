from tests.api.conftest import bearer  # noqa: F401 (fixture)
