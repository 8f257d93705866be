"""Data bundled with the package: ``corpus/``, the small set of Markdown pages that the offline
search world indexes when a session brings no corpus of its own.

Each page starts with ``url:``, ``title:`` and ``date:`` lines, then a blank line and the body.
"""
