"""Data bundled with the package: ``corpus/``, the Markdown pages that the offline search world
indexes when a session brings no corpus of its own.

Each page starts with ``url:``, ``title:`` and ``date:`` lines, then a blank line and the body. A
``*.pages.md`` file holds many such pages, separated by lines of ``+++``; the reference pages
(history, geography, science, literature, programming) are kept that way, one file per field.
"""
