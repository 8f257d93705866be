"""The search HTTP API stands without LangChain: importing it loads no ``langchain_core``."""

from __future__ import annotations

import ast
import subprocess
import sys


def _loaded_after(statement: str) -> list[str]:
    code = f"import sys\n{statement}\nprint(sorted(m for m in sys.modules if m.startswith('langchain')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return ast.literal_eval(out.stdout.strip().splitlines()[-1])


def test_the_search_api_and_flows_do_not_import_langchain() -> None:
    statement = (
        "from agentworld_plugins.adapters.search.api import create_search_app\n"
        "from agentworld_plugins.adapters.search import tavily_search_flow, parse_hits\n"
        "create_search_app"
    )
    assert _loaded_after(statement) == []


def test_the_langchain_tools_load_langchain_on_first_use() -> None:
    loaded = _loaded_after("from agentworld_plugins.adapters.search import TavilySearch")
    assert "langchain_core" in loaded
