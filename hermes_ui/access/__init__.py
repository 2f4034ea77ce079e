"""Who may see what: grants of a role on an endpoint (or all), optionally on some sources."""
