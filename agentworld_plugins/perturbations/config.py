"""Perturbations from text: ``--perturb`` specs, ``--perturb-file`` YAML, ``AGENTWORLD_PERTURB``.

A spec is ``name`` or ``name:key=value,key=value``::

    faults:rate=0.3,kinds=permission_denied+timeout,tools=write_*
    latency:distribution=uniform,min_ms=100,max_ms=900
    control:text=The disk is full, every write fails with ENOSPC.

Commas separate options only where the next piece starts ``key=``, so free text may contain
commas; list values are joined with ``+`` (``|`` for lists of sentences, as in ``adversarial``).
A YAML file holds a list (or ``perturbations:`` with a list) whose entries are specs, mappings
with a ``name``, or one-key mappings ``{faults: {rate: 0.3}}``::

    perturbations:
      - faults: {rate: 0.3, kinds: [permission_denied, timeout], tools: ["write_*"]}
      - name: fictional_world
        file: worlds/europa.md
      - "latency:ms=200"

``AGENTWORLD_PERTURB`` holds specs separated by ``;`` or new lines.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import AgentWorldError, ConfigError, UnknownNameError
from ..files import yaml_problem

if TYPE_CHECKING:
    from ..plugins import Registry

ENV_VAR = "AGENTWORLD_PERTURB"
_OPTION_START = re.compile(r",(?=\s*[A-Za-z_][\w-]*\s*=)")
_EXAMPLE = "faults:rate=0.3,kinds=permission_denied+timeout,tools=write_*"


class UnknownPerturbationError(UnknownNameError):
    """A perturbation name nothing registered; the hint lists the registered ones and their options."""

    def __init__(self, name: str, factories: Mapping[str, Callable[..., Any]]) -> None:
        super().__init__("perturbation", name, factories)
        close = difflib.get_close_matches(name, list(factories), n=1, cutoff=0.6)
        listing = "; ".join(f"{n} ({_own_options(f)})" for n, f in sorted(factories.items()))
        self.hint = (
            (f"did you mean {close[0]!r}? " if close else "")
            + f"registered perturbations: {listing or 'none'}; a plugin can add more with register_perturbations"
        )
        Exception.__init__(self, f"{self.message} ({self.hint})")


def _own_options(factory: Callable[..., Any]) -> str:
    """A factory's options for a one-line listing; the shared targeting options are summarised."""
    from .base import TargetOptions

    names = option_names(factory)
    if not names:
        return "options: see its documentation"
    options = getattr(factory, "Options", None)
    if isinstance(options, type) and issubclass(options, TargetOptions):
        own = [n for n in names if n not in TargetOptions.model_fields]
        return ", ".join([*own, "targeting and schedule options"])
    return ", ".join(names)


def option_names(factory: Callable[..., Any]) -> list[str]:
    """The option names a perturbation factory takes, when it declares them (``Options``)."""
    options = getattr(factory, "Options", None)
    fields = getattr(options, "model_fields", None)
    return list(fields) if fields else []


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"faults:rate=0.3,kinds=timeout"`` -> ``("faults", {"rate": "0.3", "kinds": "timeout"})``.

    Values are stripped strings; option names may use ``-`` for ``_``.
    """
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise ConfigError(
            f"Perturbation spec {spec!r} has no name", hint=f"write NAME:key=value,..., e.g. {_EXAMPLE}"
        )
    options: dict[str, str] = {}
    for part in _OPTION_START.split(rest) if rest.strip() else []:
        if not part.strip():
            continue
        key, eq, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not eq or not key:
            raise ConfigError(
                f"Perturbation option {part.strip()!r} in {spec!r} is not key=value",
                hint=f"write {name}:key=value,key=value, e.g. {_EXAMPLE}",
            )
        if key in options:
            raise ConfigError(
                f"Perturbation option {key!r} is given twice in {spec!r}",
                hint="give each option once; join list values with + (e.g. kinds=timeout+rate_limit)",
            )
        options[key] = value.strip()
    return name, options


def _entry(item: Any, where: str) -> tuple[str, dict[str, Any]]:
    """A YAML entry as (name, options)."""
    if isinstance(item, str):
        return parse_spec(item)
    if isinstance(item, Mapping):
        if "name" in item:
            options = {str(k).replace("-", "_"): v for k, v in item.items() if k != "name"}
            return str(item["name"]), options
        if len(item) == 1:
            ((name, options),) = item.items()
            if options is None:
                options = {}
            if not isinstance(options, Mapping):
                raise ConfigError(
                    f"{where}: the options of {name!r} must be a mapping, got {options!r}",
                    hint="write e.g. '- faults: {rate: 0.3, kinds: [timeout]}'",
                )
            return str(name), {str(k).replace("-", "_"): v for k, v in options.items()}
    raise ConfigError(
        f"{where} is not a perturbation: {item!r}",
        hint="each entry is a spec string, a mapping with 'name', or {name: {options}}",
    )


def load_file(path: str | Path) -> list[tuple[str, dict[str, Any]]]:
    """The (name, options) entries of a YAML or JSON perturbation file."""
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(
            f"Cannot read perturbation file {path}: {exc.strerror or exc}", hint="check the path"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(
            f"Perturbation file {path} is not a UTF-8 text file", hint="give a YAML or JSON file"
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(
            f"Perturbation file {path} is {yaml_problem(exc)}", hint="fix the YAML syntax"
        ) from None
    if isinstance(data, Mapping) and "perturbations" in data:
        data = data["perturbations"]
    if data is None:
        return []
    if not isinstance(data, list):
        raise ConfigError(
            f"Perturbation file {path} must hold a list of perturbations",
            hint="write 'perturbations:' followed by '- faults: {rate: 0.3}' lines",
        )
    return [_entry(item, f"{path} entry {i + 1}") for i, item in enumerate(data)]


def resolve(item: Any, registry: Registry) -> Any:
    """A perturbation plugin object from a spec string, a ``(name, options)`` pair, a mapping, or
    an object (returned as it is)."""
    if isinstance(item, str):
        name, options = parse_spec(item)
    elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
        name, options = item[0], dict(item[1])
    elif isinstance(item, Mapping):
        name, options = _entry(item, "perturbation")
    else:
        return item
    factory = registry.perturbations.get(name)
    if factory is None:
        raise UnknownPerturbationError(name, registry.perturbations)
    try:
        return factory(**options)
    except AgentWorldError:
        raise
    except TypeError as exc:
        known = option_names(factory)
        raise ConfigError(
            f"Perturbation {name!r} does not take these options ({', '.join(options) or 'none'}): {exc}",
            hint=f"{name} takes: {', '.join(known)}" if known else f"see the documentation of {name}",
        ) from None


def specs_from_env(environ: Mapping[str, str] | None = None) -> list[str]:
    """The specs in ``AGENTWORLD_PERTURB`` (``;`` or new-line separated)."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "")
    return [s.strip() for s in re.split(r"[;\n]", value) if s.strip()]


def perturbations_from_options(
    specs: Iterable[str], file: str | Path | None, registry: Registry, *, use_env: bool = True
) -> list[Any]:
    """The perturbation objects a command was given: the file's entries, then each ``--perturb``
    (or, when none was given, ``AGENTWORLD_PERTURB``). Every one is built now, so bad names and
    values fail before any session starts."""
    items: list[Any] = []
    if file is not None:
        items.extend(load_file(file))
    given = list(specs)
    if not given and use_env:
        given = specs_from_env()
    items.extend(given)
    return [resolve(item, registry) for item in items]
