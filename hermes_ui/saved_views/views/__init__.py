"""Views of saved views: saving the index's search (``save``), managing views (``manage``)."""
