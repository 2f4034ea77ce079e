"""URLs of the usage feature."""

urlpatterns: list = []
