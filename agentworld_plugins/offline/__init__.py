"""A deterministic, in-memory Linux world for the ``offline`` backend: no model, nothing run on the host.

- :mod:`.vfs`: a POSIX-like filesystem held in memory, with a frozen clock;
- :mod:`.shell`: a bash look-alike (``VirtualMachine``) over that filesystem, parsed with bashlex;
- :mod:`.swe_tools`: coding-agent tools (Gemini CLI / Qwen Code, OpenHands) answered by the machine;
- :mod:`.plugin`: the built-in plugin registering each domain's world (``register_offline_worlds``).
"""
