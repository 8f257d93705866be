"""The terminal observation format: the screen of an interactive shell."""

from __future__ import annotations

#: the offline machine's default prompt (root in ``/app`` on host ``agentworld``), as a screen shows it
DEFAULT_PROMPT = "root@agentworld:/app#"
