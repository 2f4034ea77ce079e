"""Views of the tags feature: the managed list (``manage``), one session (``session``),
a bulk selection from the index (``bulk``)."""
