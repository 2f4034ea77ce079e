"""Routes of the lineage feature, included before the catch-all session route."""

urlpatterns: list = []
