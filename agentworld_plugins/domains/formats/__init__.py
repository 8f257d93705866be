"""The observation text formats of the domains: one definition of each screen's format.

Each module parses and renders one domain's observation text (:mod:`.web` the BrowserGym
accessibility tree, :mod:`.android` the ``UI element N: {json}`` lines, :mod:`.os` the
tab-separated accessibility table, :mod:`.terminal` the shell screen's prompt). The offline
worlds, the GUI adapters and the perturbations read and write screens through these.
"""
