"""Development tooling kept outside the runtime package ``hermes_ui``.

``peer/`` runs the real Hermes API server offline (demo and tests),
``bench/`` measures, and the ``demo`` and ``bench`` management commands
drive them (``make run``, ``make bench``).
"""
