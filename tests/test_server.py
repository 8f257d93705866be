"""``agentworld serve``: the OpenAI-compatible app over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import openai
import pytest
import uvicorn

from agentworld_plugins.backends.base import Completion
from agentworld_plugins.backends.fake import FakeBackend
from agentworld_plugins.errors import BackendUnavailableError
from agentworld_plugins.server import create_app


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Served:
    def __init__(self, app) -> None:
        self.port = _free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="error"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.01)
        return f"http://127.0.0.1:{self.port}/v1"

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(5)


@pytest.fixture
def served() -> Iterator[tuple[str, FakeBackend]]:
    backend = FakeBackend()
    with _Served(create_app(backend, api_key="secret", model_name="wm")) as url:
        yield url, backend


def _post(url: str, body: bytes, key: str = "secret") -> tuple[int, dict]:
    request = urllib.request.Request(
        url + "/chat/completions",
        data=body,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_openai_client_gets_the_backend_answer(served):
    url, backend = served
    backend.enqueue(
        Completion(
            text="<predicted_observation>hi</predicted_observation>",
            reasoning="why",
            usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        )
    )
    client = openai.OpenAI(base_url=url, api_key="secret")
    response = client.chat.completions.create(
        model="wm",
        messages=[{"role": "user", "content": "### Turn 1"}],
        temperature=0.0,
        max_tokens=64,
        seed=3,
    )
    assert response.choices[0].message.content == "<predicted_observation>hi</predicted_observation>"
    assert response.choices[0].message.model_extra["reasoning_content"] == "why"
    assert response.usage.total_tokens == 5
    messages, sampling = backend.history[0]
    assert messages == [{"role": "user", "content": "### Turn 1"}]
    assert (sampling.temperature, sampling.max_tokens, sampling.seed) == (0.0, 64, 3)
    assert [m.id for m in client.models.list()] == ["wm"]


def test_streaming_answer(served):
    url, backend = served
    backend.enqueue("streamed text")
    client = openai.OpenAI(base_url=url, api_key="secret")
    chunks = client.chat.completions.create(
        model="wm", messages=[{"role": "user", "content": "x"}], stream=True
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "streamed text"


def test_bad_requests_get_400_json_naming_the_field(served):
    url, _ = served
    status, body = _post(url, b"{not json")
    assert status == 400 and "not valid JSON" in body["error"]["message"]
    status, body = _post(url, json.dumps({"messages": []}).encode())
    assert status == 400 and body["error"]["param"] == "messages"
    status, body = _post(url, json.dumps({"messages": [{"role": "wizard", "content": "x"}]}).encode())
    assert status == 400 and "messages[0].role" in body["error"]["message"]
    status, body = _post(
        url, json.dumps({"messages": [{"role": "user", "content": "x"}], "temperature": 9}).encode()
    )
    assert status == 400 and body["error"]["param"] == "temperature"


def test_bearer_token_required(served):
    url, _ = served
    status, body = _post(
        url, json.dumps({"messages": [{"role": "user", "content": "x"}]}).encode(), key="wrong"
    )
    assert status == 401 and body["error"]["type"] == "authentication_error"


def test_backend_failure_maps_to_http_status(served):
    url, backend = served
    backend.enqueue(BackendUnavailableError("Cannot reach the world model at http://gpu:8000/v1"))
    status, body = _post(url, json.dumps({"messages": [{"role": "user", "content": "x"}]}).encode())
    assert status == 503 and "gpu:8000" in body["error"]["message"]


# -- an upstream that is this server itself ------------------------------------------------------------


@pytest.mark.parametrize(
    ("bind", "upstream", "is_self"),
    [
        ("127.0.0.1", "http://127.0.0.1:8000/v1", True),
        ("127.0.0.1", "http://localhost:8000/v1", True),
        ("127.0.0.1", "http://[::1]:8000/v1", True),
        ("localhost", "http://127.0.0.1:8000", True),
        ("0.0.0.0", "http://127.0.0.1:8000/v1", True),
        ("0.0.0.0", f"http://{socket.gethostname()}:8000/v1", True),
        ("127.0.0.1", "http://gpu-box:8000/v1,http://localhost:8000/v1", True),
        ("127.0.0.1", "http://127.0.0.1:8001/v1", False),
        ("127.0.0.1", "http://gpu-box:8000/v1", False),
        ("127.0.0.1", "https://api.example.com/v1", False),
    ],
)
def test_self_upstream_is_recognised(bind, upstream, is_self):
    from agentworld_plugins.server import self_upstream

    assert (self_upstream(bind, 8000, upstream) is not None) is is_self


def test_serve_refuses_to_forward_to_itself_at_startup(tmp_path):
    """What the offline notice suggests (AGENTWORLD_BASE_URL=http://localhost:8000/v1), set in the
    shell that starts serve on that port: refused at once, nothing listens, no request hangs."""
    import os
    import subprocess
    import sys

    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTWORLD_")}
    env["AGENTWORLD_BASE_URL"] = f"http://localhost:{port}/v1"
    command = [sys.executable, "-m", "agentworld_plugins", "serve", "--port", str(port)]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert f"AGENTWORLD_BASE_URL http://localhost:{port}/v1 is this server's own address" in proc.stderr
    assert "forward every request to itself" in proc.stderr
    proc = subprocess.run(
        [*command, "--upstream", f"http://127.0.0.1:{port}/v1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1 and "--upstream http://127.0.0.1" in proc.stderr
