"""Every shell and Python block in README.md, docs/*.md and examples/*/README.md runs as written.

Each Markdown file's blocks run in order in one process (``run_blocks.py``) in a fresh working
directory holding a copy of ``examples/``, with ``HOME`` and ``AGENTWORLD_HOME`` in temporary
folders and no ``AGENTWORLD_*`` settings from the caller: the offline world, as a newcomer gets it.
Blocks marked ``<!-- docs-test: needs-model -->`` get ``AGENTWORLD_BASE_URL`` pointing at an
``agentworld serve`` (offline) the runner starts on 127.0.0.1 for the file, after the blocks before; ``<!-- docs-test: skip reason=... -->`` blocks
are counted and must say why. The marker convention is in README.md, "Contributing".
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from doc_blocks import ERROR_REPORTS, ROOT, Block, all_blocks, doc_files, parse_marker

from agentworld_plugins.testing import clean_env

BLOCKS = all_blocks()
KNOWN_MARKS = {"", "needs-model", "skip"}
BLOCK_TIMEOUT = 120  # seconds per block; a hung server or prompt fails its block, not the suite
RUNNER = Path(__file__).with_name("run_blocks.py")
#: one worker runs every block (the session fixture ``doc_results``); on two it ran them twice
pytestmark = pytest.mark.xdist_group("docs")


def _clean_env(tmp: Path) -> dict[str, str]:
    env = clean_env()
    (tmp / "home").mkdir(exist_ok=True)
    (tmp / "site").mkdir(exist_ok=True)  # on PYTHONPATH from the start, so imports see what lands there
    env.update(
        HOME=str(tmp / "home"),
        AGENTWORLD_HOME=str(tmp / "agentworld-home"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PYTHONUNBUFFERED="1",
        NO_COLOR="1",
        _DOCS_SITE=str(tmp / "site"),
        _DOCS_REPO=str(ROOT),
        PYTHONPATH=str(tmp / "site"),
    )
    return env


def _spec(b: Block) -> dict:
    spec = {"id": b.id, "lang": b.lang, "code": b.code, "mark": b.mark}
    if b.lang == "file":
        spec["target"], spec["append"] = b.file_target()
    return spec


def _run_file(path: str, blocks: list[Block], base: Path) -> dict[str, dict]:
    tmp = base / path.replace("/", "__")
    cwd = tmp / "work"
    shutil.copytree(ROOT / "examples", cwd / "examples", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    spec = {
        "cwd": str(cwd),
        "timeout": BLOCK_TIMEOUT,
        "blocks": [_spec(b) for b in blocks],
    }
    (tmp / "spec.json").write_text(json.dumps(spec))
    results = tmp / "results.json"
    proc = subprocess.run(
        [sys.executable, str(RUNNER), str(tmp / "spec.json"), str(results)],
        env=_clean_env(tmp),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT * (len(blocks) + 1),
    )
    if (tmp / "agentworld-home" / "shim").exists():  # a doc started the shims' helper process
        subprocess.run(
            [sys.executable, "-m", "agentworld_plugins", "shim", "stop"],
            env=_clean_env(tmp),
            cwd=cwd,
            capture_output=True,
            timeout=60,
        )
    done = json.loads(results.read_text()) if results.exists() else {}
    for b in blocks:  # a runner that died leaves its remaining blocks failed, with its output
        done.setdefault(b.id, {"ok": False, "skipped": False, "output": proc.stdout + proc.stderr})
    return done


@pytest.fixture(scope="session")
def doc_results(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict[str, dict]:
    """Run every file's blocks (files in parallel, blocks of one file in order) once per session;
    only the files of the blocks selected (``-k``), all of a file's blocks (a tutorial builds up)."""
    base = tmp_path_factory.mktemp("docs")
    chosen = {
        item.callspec.params["block"].path
        for item in request.session.items
        if hasattr(item, "callspec") and isinstance(item.callspec.params.get("block"), Block)
    }
    by_file: dict[str, list[Block]] = {}
    for b in BLOCKS:
        if not chosen or b.path in chosen:
            by_file.setdefault(b.path, []).append(b)
    results: dict[str, dict] = {}
    with ThreadPoolExecutor(max_workers=4) as pool:
        for done in pool.map(lambda item: _run_file(item[0], item[1], base), by_file.items()):
            results.update(done)
    return results


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_runs(block: Block, doc_results: dict[str, dict]) -> None:
    result = doc_results[block.id]
    if result["skipped"]:
        pytest.skip(f"marked in the doc: {block.reason}")
    assert result["ok"], f"{block.id} failed ({block.lang}, {block.mark or 'offline'}):\n{result['output']}"
    reported = unexpected_error(block, result["output"])
    assert reported is None, (
        f"{block.id} exited 0 but its output reports an error ({reported!r}); fix the block, or mark "
        f"it <!-- docs-test: expect-error --> if it shows one on purpose:\n{result['output']}"
    )


def unexpected_error(block: Block, output: str) -> str | None:
    """What in ``output`` reports an error the block was not marked to show, if anything."""
    if block.expects_error or block.lang == "file":
        return None
    found = ERROR_REPORTS.search(output)
    return found.group(0) if found else None


def test_an_error_in_the_output_fails_a_block_unless_it_is_expected() -> None:
    plain = Block("docs/x.md", 1, "python", "print(step())\n")
    expected = Block("docs/x.md", 1, "python", "print(step())\n", expects_error=True)
    shown = "Observation(text='boom', is_error=True, metadata={})"
    assert unexpected_error(plain, shown) == "is_error=True"
    assert unexpected_error(plain, '{"text": "x", "is_error": true}') == '"is_error": true'
    assert unexpected_error(plain, "Traceback (most recent call last):\n  File ...") is not None
    assert unexpected_error(plain, "is_error=False, text='fine'") is None
    assert unexpected_error(expected, shown) is None
    assert parse_marker("<!-- docs-test: expect-error -->") == ("expect-error", "")
    assert parse_marker("<!-- docs-test: needs-model expect-error -->") == ("needs-model expect-error", "")


def test_markers_are_known_and_skips_say_why() -> None:
    for b in BLOCKS:
        assert b.mark in KNOWN_MARKS, (
            f"{b.id}: unknown docs-test marker {b.mark!r} (use {sorted(KNOWN_MARKS)})"
        )
        if b.mark == "skip":
            assert b.reason, f"{b.id}: a skipped block needs <!-- docs-test: skip reason=... -->"


def test_few_blocks_are_skipped() -> None:
    skipped = [b.id for b in BLOCKS if b.mark == "skip"]
    assert len(BLOCKS) >= 40, "the extractor found too few blocks: is the fence pattern still right?"
    assert len(skipped) <= len(BLOCKS) // 5, f"too many skipped doc blocks ({len(skipped)}): {skipped}"


def test_extractor_reads_markers(tmp_path: Path) -> None:
    doc = tmp_path / "README.md"
    doc.write_text(
        "text\n\n<!-- docs-test: skip reason=needs a GPU -->\n```bash\nnvidia-smi\n```\n\n"
        "<!-- docs-test: needs-model -->\n\n```python\nprint(1)\n```\n\n```json\n{}\n```\n"
        "- item\n\n  ```sh\n  echo hi\n  ```\n"
        "```console\n$ agentworld domains\nmcp ...\n```\n"
    )
    from doc_blocks import blocks_in

    found = blocks_in(doc, tmp_path)
    assert [(b.line, b.lang, b.mark, b.reason) for b in found] == [
        (4, "shell", "skip", "needs a GPU"),
        (10, "python", "needs-model", ""),
        (19, "shell", "", ""),
        (22, "shell", "", ""),
    ]
    assert found[2].code == "echo hi\n"
    assert found[3].code == "agentworld domains\n"


def test_install_instructions_use_the_checkout() -> None:
    """The package is installed from the checkout (not on a package index): no doc, docstring or
    error hint says ``pip install agentworld-plugins[...]``."""
    pattern = re.compile(r"pip install\s+['\"]?agentworld-plugins")
    files = [*doc_files(), *ROOT.glob("agentworld_plugins/**/*.py"), *ROOT.glob("adapters/**/*.py")]
    files += [*ROOT.glob("examples/**/*.py"), *ROOT.glob("examples/**/*.sh")]
    found = [
        f"{f.relative_to(ROOT)}:{n}"
        for f in files
        for n, line in enumerate(f.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, f'say `pip install -e ".[extra]"` (from the checkout) instead: {found}'
