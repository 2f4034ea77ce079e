"""URLs of the watermarks feature."""

urlpatterns: list = []
