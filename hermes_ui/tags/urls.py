"""URLs of the tags feature."""

urlpatterns: list = []
