"""Routes of the deletion feature, included before the catch-all session route."""

urlpatterns: list = []
