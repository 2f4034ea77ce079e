"""Views, one module per resource."""
