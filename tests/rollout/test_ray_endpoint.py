"""``--ray HOST:PORT`` where something other than a Ray cluster listens fails at once, saying what
answered (``ray.init`` alone retries for minutes). Ray's GCS speaks gRPC, which
answers the probe (``test_ray.py`` checks a real GCS), an HTTP/1 server, a silent one and one that
hangs up do not. No Ray is started here."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentworld_plugins.cli import cli
from agentworld_plugins.errors import ConfigError
from agentworld_plugins.rollout.ray import check_reachable


@pytest.fixture
def http_server() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _tcp_server(answer: bool) -> tuple[socket.socket, threading.Thread, list[socket.socket]]:
    """A TCP server that reads and then stays silent (``answer`` False) or hangs up at once."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            if answer:
                conn.close()
            else:
                held.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread, held


def test_an_http_server_at_the_address_is_named_in_one_line(http_server: str, tmp_path: Path) -> None:
    args = ["rollout", "run", "--tasks", "bundled", "--agent", "scripted:bundled", "--backend", "offline"]
    result = CliRunner().invoke(cli, [*args, "--ray", http_server, "-o", str(tmp_path / "e.jsonl")])
    assert result.exit_code == 1
    assert f"{http_server} is not a Ray cluster: an HTTP/1 server listens there" in result.output
    assert "it answered '" in result.output  # the first line of what the server said
    assert "ray start --head" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "e.jsonl").exists()


def test_a_silent_server_and_one_that_hangs_up_are_refused() -> None:
    for answer, said in ((False, "did not answer Ray's handshake"), (True, "closed the connection")):
        listener, thread, held = _tcp_server(answer)
        address = f"127.0.0.1:{listener.getsockname()[1]}"
        try:
            with pytest.raises(ConfigError, match="is not a Ray cluster") as caught:
                check_reachable(address, timeout=0.5)
            assert said in caught.value.message
        finally:
            listener.close()
            for conn in held:
                conn.close()
            thread.join(5)
