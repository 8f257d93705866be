"""The ``transformers`` backend: the world model's weights loaded in this process.

``--backend transformers:/path/to/model`` (or a Hugging Face model id) loads the tokenizer and
the causal LM once, on first use, and answers each request with ``model.generate``. Meant for
small models, tests and machines without an inference server; for throughput serve the model
with vLLM or SGLang and use the ``openai`` backend.

torch and transformers are optional: they are imported only when the backend loads its model.
Inline ``<think>`` reasoning stays in :attr:`Completion.text`; the session's parser splits it off.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import ConfigError
from .base import Backend, Completion, Sampling

_INSTALL_HINT = 'install the transformers extra from the checkout: pip install -e ".[transformers]"'
_MODEL_HINT = "pass --backend transformers:/path/to/model or set AGENTWORLD_MODEL to a folder or model id"
# extra_body fields that map onto ``generate`` arguments of the same name
_GENERATE_EXTRAS = ("top_k", "min_p", "repetition_penalty")
_STOP_WINDOW_MARGIN = 8  # tokens decoded beyond the longest stop string's length


def _import_runtime() -> tuple[Any, Any]:
    """torch and transformers, or a ConfigError saying how to install them."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ConfigError(
            "The transformers backend needs torch and transformers", hint=_INSTALL_HINT
        ) from exc
    return torch, transformers


def _looks_like_path(spec: str) -> bool:
    """Whether ``spec`` names a folder rather than a hub id (``org/name``)."""
    return (
        spec.startswith((".", "~", "/"))
        or os.path.isabs(spec)
        or "\\" in spec
        or spec.count("/") > 1
        or os.path.exists(spec)
    )


def render_plain(messages: Sequence[dict[str, Any]]) -> str:
    """The prompt for a tokenizer without a chat template: ``<|role|>`` headers, then the answer's."""
    parts = [f"<|{m.get('role', 'user')}|>\n{m.get('content') or ''}\n" for m in messages]
    parts.append("<|assistant|>\n")
    return "".join(parts)


def _first_stop(text: str, stops: Sequence[str]) -> int:
    """Where the earliest stop string starts in ``text``, or -1."""
    found = [i for i in (text.find(s) for s in stops) if i >= 0]
    return min(found) if found else -1


def _dtype_argument(transformers: Any) -> str:
    """``dtype`` since transformers 4.56, ``torch_dtype`` before."""
    try:
        major, minor = (int(p) for p in transformers.__version__.split(".")[:2])
    except ValueError:
        return "dtype"
    return "dtype" if (major, minor) >= (4, 56) else "torch_dtype"


@contextlib.contextmanager
def _seeded(torch: Any, seed: int | None, device: Any) -> Iterator[None]:
    """Seed torch for one generation, restoring the global RNG state afterwards."""
    if seed is None:
        yield
        return
    if device.type == "cuda":
        index = device.index if device.index is not None else torch.cuda.current_device()
        fork = torch.random.fork_rng(devices=[index], device_type="cuda")
    else:
        fork = torch.random.fork_rng(devices=[])
    with fork:
        torch.manual_seed(seed)
        yield


def _stop_criteria(torch: Any, transformers: Any, tokenizer: Any, stops: list[str], prompt_len: int) -> Any:
    """A stopping criterion that ends generation once a stop string was decoded.

    ``generate(stop_strings=...)`` needs a tokenizer whose vocabulary it can map back to text,
    which fails for some (WordLevel, for one); decoding the tail of the answer works for all.
    """
    window = max(len(s) for s in stops) + _STOP_WINDOW_MARGIN

    class StopOnStrings(transformers.StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            done = []
            for row in input_ids:
                tail = row[prompt_len:][-window:]
                text = tokenizer.decode(tail, skip_special_tokens=True)
                done.append(_first_stop(text, stops) >= 0)
            return torch.tensor(done, dtype=torch.bool, device=input_ids.device)

    return transformers.StoppingCriteriaList([StopOnStrings()])


class TransformersBackend(Backend):
    """A causal LM run in-process with Hugging Face transformers.

    ``model`` is a local folder or a hub model id; ``device`` defaults to ``cuda`` when available,
    else ``cpu``; ``dtype`` is ``"auto"`` (the checkpoint's), a torch dtype name
    (``"bfloat16"``) or ``None`` (the library default).
    """

    name = "transformers"

    def __init__(
        self,
        model: str,
        *,
        device: str | None = None,
        dtype: str | None = "auto",
        trust_remote_code: bool = False,
    ) -> None:
        model = (model or "").strip()
        if not model:
            raise ConfigError(
                "The transformers backend needs a model: a local folder or a Hugging Face model id",
                hint=_MODEL_HINT,
            )
        self.model = model
        self.device = device
        self.dtype = dtype
        self.trust_remote_code = trust_remote_code
        self._tokenizer: Any = None
        self._model: Any = None
        self._device: Any = None  # the torch.device the model is on
        self._load_lock = threading.Lock()
        self._generate_lock = threading.Lock()

    # -- loading -----------------------------------------------------------------------------------

    def _loaded(self) -> tuple[Any, Any, Any]:
        """(tokenizer, model, device), loading them on first use."""
        with self._load_lock:
            if self._model is None:
                self._load()
            return self._tokenizer, self._model, self._device

    def _source(self) -> str:
        """The folder or hub id to load from; a ConfigError for a folder that is not there."""
        spec = os.path.expanduser(self.model)
        if _looks_like_path(spec):
            if not os.path.isdir(spec):
                raise ConfigError(
                    f"No model folder at {self.model!r}",
                    hint="pass the folder that holds config.json, the weights and the tokenizer files "
                    "(--backend transformers:/path/to/model or AGENTWORLD_MODEL)",
                )
            return spec
        return self.model

    def _load_hint(self, source: str) -> str:
        if os.path.isdir(source):
            return "the folder must hold config.json, the weights and the tokenizer files of a causal LM"
        offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")
        if offline:
            return (
                f"HF_HUB_OFFLINE is set and {source!r} is not in the local cache: download it first "
                f"(huggingface-cli download {source}) or pass a local folder "
                "(--backend transformers:/path/to/model)"
            )
        return (
            "check the model id and network access, or pass a local folder "
            "(--backend transformers:/path/to/model); with the model already cached, set HF_HUB_OFFLINE=1"
        )

    def _torch_dtype(self, torch: Any) -> Any:
        if self.dtype is None or self.dtype == "auto":
            return self.dtype
        value = getattr(torch, self.dtype, None)
        if not isinstance(value, torch.dtype):
            raise ConfigError(
                f"Unknown dtype {self.dtype!r} for the transformers backend",
                hint='use "auto", "bfloat16", "float16" or "float32"',
            )
        return value

    def _load(self) -> None:
        torch, transformers = _import_runtime()
        source = self._source()
        device = torch.device(self.device or ("cuda" if torch.cuda.is_available() else "cpu"))
        kwargs: dict[str, Any] = {"trust_remote_code": self.trust_remote_code}
        dtype = self._torch_dtype(torch)
        if dtype is not None:
            kwargs[_dtype_argument(transformers)] = dtype
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(
                source, trust_remote_code=self.trust_remote_code
            )
            model = transformers.AutoModelForCausalLM.from_pretrained(source, **kwargs)
        except Exception as exc:  # OSError, ValueError, ImportError, hub errors: all mean "cannot load"
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ConfigError(
                f"Could not load the model {self.model!r}: {reason}", hint=self._load_hint(source)
            ) from exc
        try:
            model.to(device)
        except (RuntimeError, AssertionError, ValueError) as exc:
            raise ConfigError(
                f"Could not move the model {self.model!r} to {device}: {exc}",
                hint="pick another device (cpu, cuda, cuda:1) or a smaller dtype",
            ) from exc
        model.eval()
        self._tokenizer, self._model, self._device = tokenizer, model, device

    # -- generation --------------------------------------------------------------------------------

    def _prompt(self, tokenizer: Any, messages: list[dict[str, Any]], sampling: Sampling) -> tuple[str, bool]:
        """The prompt text, and whether it came from the tokenizer's chat template."""
        if not getattr(tokenizer, "chat_template", None):
            return render_plain(messages), False
        extra = sampling.extra_body or {}
        template_kwargs = extra.get("chat_template_kwargs") or {}
        text = tokenizer.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True, **template_kwargs
        )
        return str(text), True

    def _eos_ids(self, tokenizer: Any, model: Any) -> set[int]:
        eos = getattr(model.generation_config, "eos_token_id", None)
        if eos is None:
            eos = tokenizer.eos_token_id
        if eos is None:
            return set()
        return {int(e) for e in eos} if isinstance(eos, (list, tuple)) else {int(eos)}

    def _generate_kwargs(self, tokenizer: Any, model: Any, sampling: Sampling) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"max_new_tokens": sampling.max_tokens}
        pad = tokenizer.pad_token_id
        if pad is None and model.generation_config.pad_token_id is None:
            pad = tokenizer.eos_token_id
        if pad is not None:
            kwargs["pad_token_id"] = pad
        if sampling.temperature > 0:
            kwargs["do_sample"] = True
            kwargs["temperature"] = sampling.temperature
            if sampling.top_p is not None:
                kwargs["top_p"] = sampling.top_p
            extra = sampling.extra_body or {}
            kwargs.update({k: extra[k] for k in _GENERATE_EXTRAS if extra.get(k) is not None})
        else:
            kwargs["do_sample"] = False
        return kwargs

    def complete(self, messages: list[dict[str, Any]], sampling: Sampling) -> Completion:
        torch, transformers = _import_runtime()
        tokenizer, model, device = self._loaded()
        prompt, templated = self._prompt(tokenizer, messages, sampling)
        encoded = tokenizer(prompt, return_tensors="pt", add_special_tokens=not templated)
        encoded = {k: v.to(device) for k, v in encoded.items()}
        prompt_len = int(encoded["input_ids"].shape[-1])
        kwargs = self._generate_kwargs(tokenizer, model, sampling)
        stops = [s for s in (sampling.stop or []) if s]
        if stops:
            kwargs["stopping_criteria"] = _stop_criteria(torch, transformers, tokenizer, stops, prompt_len)
        with self._generate_lock, torch.inference_mode(), _seeded(torch, sampling.seed, device):
            output = model.generate(**encoded, **kwargs)
        new_ids = [int(t) for t in output[0, prompt_len:].tolist()]
        text = tokenizer.decode(new_ids, skip_special_tokens=True)
        cut = _first_stop(text, stops)
        if cut >= 0:
            text = text[:cut]
        ended = bool(new_ids) and new_ids[-1] in self._eos_ids(tokenizer, model)
        full = len(new_ids) >= sampling.max_tokens and not ended and cut < 0
        return Completion(
            text=text,
            usage={
                "prompt_tokens": prompt_len,
                "completion_tokens": len(new_ids),
                "total_tokens": prompt_len + len(new_ids),
            },
            model=self.model,
            finish_reason="length" if full else "stop",
        )

    # -- the rest ----------------------------------------------------------------------------------

    def describe(self) -> str:
        device = self._device if self._device is not None else (self.device or "auto")
        return f"transformers({self.model}, device={device})"

    def close(self) -> None:
        """Drop the model and tokenizer (a later request loads them again)."""
        with self._load_lock:
            on_cuda = self._device is not None and self._device.type == "cuda"
            self._tokenizer = self._model = self._device = None
        torch = sys.modules.get("torch")
        if on_cuda and torch is not None:
            torch.cuda.empty_cache()

    def __repr__(self) -> str:
        return f"<TransformersBackend {self.describe()}>"
