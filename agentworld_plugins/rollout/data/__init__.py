"""Bundled task files and agent scripts (``importlib.resources``), for the offline demo and tests."""
