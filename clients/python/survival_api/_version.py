"""The package version, read by pyproject.toml and sent in the User-Agent."""

__version__ = "0.1.0"
