"""Main package for Cookiecutter."""

from importlib.metadata import version

__version__ = version("cookiecutter")
