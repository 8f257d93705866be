"""``python -m agentworld_plugins`` runs the CLI."""

from .cli import main

main()
