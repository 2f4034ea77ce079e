"""Routes of the changes feature, included before the catch-all session route."""

urlpatterns: list = []
