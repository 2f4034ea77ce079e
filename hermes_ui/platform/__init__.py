"""The shared platform under every feature: settings readers, database and
Redis plumbing, private files, serving, form rendering, what erasers use,
endpoint identity and small shared helpers. Imports no feature, no web, no
Hermes client."""
