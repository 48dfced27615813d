from django.apps import AppConfig


class DemoConfig(AppConfig):
    """`make demo`'s commands: they seed the sandbox and set up a reseller on it, so they read
    across every app and sit above them all."""

    name = "demo"
    verbose_name = "Demo"
