"""URLs of the review feature."""

urlpatterns: list = []
