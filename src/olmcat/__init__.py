"""olmcat: migrate, diff and mirror OLM catalogs."""

__version__ = "0.1.0"
