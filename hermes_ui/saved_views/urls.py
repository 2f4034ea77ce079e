"""URLs of the saved_views feature."""

urlpatterns: list = []
