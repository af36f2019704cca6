__version__ = "2.16"
