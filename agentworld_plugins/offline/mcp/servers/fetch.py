"""``mcp-server-fetch``: a page of the offline web (the search world's corpus, where the URL is
known) in the server's own output form, an honest fetch failure otherwise.

Facts taken from the server (2026.10.24, ``mcp_server_fetch/server.py``): the answer is
"Contents of URL:" and the page, cut to ``max_length`` characters from ``start_index``; a cut page
ends "<error>Content truncated. Call the fetch tool with a start_index of N to get more
content.</error>", a ``start_index`` past the end reads "<error>No more content available.</error>";
a page that is not HTML comes after "Content type TYPE cannot be simplified to markdown, but here
is the raw content:". Before the page, unless the server runs with ``--ignore-robots-txt``, it
reads the site's robots.txt (a site it cannot reach: "Failed to fetch robots.txt URL due to a
connection issue"); a private, loopback or link-local host is refused unless
``--allow-private-ips``; an HTTP error reads "Failed to fetch URL - status code N"; the URL is
pydantic's ``AnyUrl`` (``http://host`` becomes ``http://host/``).

The offline web holds its pages as markdown documents, served as ``text/markdown;
charset=utf-8``: the server passes such a page on raw, after the content-type line. A host no page
of the corpus is on cannot be reached (a connection error); a path the corpus lacks on a known
host is a 404; the offline web has no robots.txt (a 404, which allows everything).
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

__all__ = ["FetchServer"]

CONTENT_TYPE = "text/markdown; charset=utf-8"
_PRIVATE_HINT = (
    "which is not a public address. Start the server with --allow-private-ips to allow private, "
    "loopback and link-local addresses."
)


class _Refused(Exception):
    pass


def _address(host: str) -> str | None:
    """The non-public address ``host`` stands for, where it is an IP literal or localhost."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None
    return None if ip.is_global and not ip.is_multicast else str(ip)


class FetchServer:
    """The ``fetch`` tool on the session's corpus, with the server's command-line options."""

    def __init__(self, context: dict[str, Any]) -> None:
        options = context.get("fetch_options") or {}
        self.ignore_robots = bool(options.get("ignore_robots_txt"))
        self.allow_private = bool(options.get("allow_private_ips"))
        self.context = context
        self._corpus: Any = None

    def corpus(self) -> Any:
        if self._corpus is None:
            from ...search_world import load_corpus

            self._corpus = load_corpus(self.context)[0]
        return self._corpus

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[Any, Any, bool]:
        try:
            return self._fetch(arguments), None, False
        except _Refused as exc:
            return f"Error executing tool {name}: {exc}", None, True

    def _known_host(self, netloc: str) -> bool:
        """Whether a page of the corpus is on ``netloc`` (host and port)."""
        netloc = netloc.lower().removeprefix("www.")
        for page in self.corpus().pages:
            for url in (page.url, *page.aliases):
                if urlsplit(url).netloc.lower().removeprefix("www.") == netloc:
                    return True
        return False

    def _get(self, url: str) -> tuple[int, str]:
        """``(status, body)`` of a GET on the offline web; a host it lacks cannot be reached."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        address = _address(host)
        if address is not None and not self.allow_private:
            raise _Refused(f"Refused to fetch {url}: {host} resolves to {address}, {_PRIVATE_HINT}")
        if not self._known_host(parts.netloc):
            raise ConnectionError(url)
        page = self.corpus().page(url)
        return (200, page.body) if page is not None else (404, "")

    def _fetch(self, arguments: dict[str, Any]) -> str:
        from pydantic import AnyUrl

        page_url = str(AnyUrl(str(arguments.get("url", ""))))
        max_length = int(arguments.get("max_length", 5000))
        start_index = int(arguments.get("start_index", 0))
        if not self.ignore_robots:
            robots = f"{urlsplit(page_url).scheme}://{urlsplit(page_url).netloc}/robots.txt"
            try:
                self._get(robots)  # the offline web has no robots.txt: a 404 allows the page
            except ConnectionError:
                raise _Refused(f"Failed to fetch robots.txt {robots} due to a connection issue") from None
        try:
            status, content = self._get(page_url)
        except ConnectionError:
            raise _Refused(
                f"Failed to fetch {page_url}: ConnectError('[Errno -2] Name or service not known')"
            ) from None
        if status >= 400:
            raise _Refused(f"Failed to fetch {page_url} - status code {status}")
        prefix = (
            f"Content type {CONTENT_TYPE} cannot be simplified to markdown, but here is the raw content:\n"
        )
        length = len(content)
        if start_index >= length:
            content = "<error>No more content available.</error>"
        else:
            cut = content[start_index : start_index + max_length]
            remaining = length - (start_index + len(cut))
            content = cut
            if len(cut) == max_length and remaining > 0:
                content += (
                    f"\n\n<error>Content truncated. Call the fetch tool with a start_index of "
                    f"{start_index + len(cut)} to get more content.</error>"
                )
        return f"{prefix}Contents of {page_url}:\n{content}"
