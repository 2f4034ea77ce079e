"""Two endpoints, as in test_rules.py: eu and us, each its own Hermes (never called here)."""
