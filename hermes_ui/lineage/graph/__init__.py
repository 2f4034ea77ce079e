"""Session lineage: pure classification and graph building (no HTTP, no Django)."""
