from django.apps import AppConfig


class DevtoolsConfig(AppConfig):
    """The demo/test peer and the benchmarks: development tooling, not the installed app."""

    name = "devtools"
    verbose_name = "Development tools"
