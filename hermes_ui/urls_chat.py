"""Routes of the chat feature, included before the catch-all session route."""

urlpatterns: list = []
