"""Fronts that impersonate what agents already talk to (MCP servers, LangChain tools, shells, ...).

Installed as ``agentworld_plugins.adapters``; every adapter is a thin layer over
:meth:`agentworld_plugins.Session.step`.
"""
