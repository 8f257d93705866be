"""What the android, os and web domain tests share: one observation of each, and the domain as the
built-in plugins register it."""

from __future__ import annotations

from typing import TypeVar

from agentworld_plugins.domains.base import Domain
from agentworld_plugins.plugins import new_plugin_manager

ANDROID_SCREEN = (
    'UI element 0: {"text": "Clock", "class_name": "android.widget.TextView", "is_clickable": true, '
    '"bbox": [40, 300, 260, 420]}\n'
    'UI element 1: {"text": "Settings", "class_name": "android.widget.TextView", "is_clickable": true, '
    '"bbox": [300, 300, 520, 420]}'
)
OS_TREE = (
    "tag\tname\ttext\tclass\tdescription\tposition (top-left x&y)\tsize (w&h)\n"
    "push-button\tFiles\t\t\t\t(0, 120)\t(70, 64)\n"
    "label\tActivities\tActivities\t\t\t(0, 0)\t(100, 27)"
)
WEB_PAGE = "URL: https://shop.example.com/\nTitle: Example Shop\n\nRootWebArea 'Example Shop', focused\n\t[12] link 'Cart'"

D = TypeVar("D", bound=Domain)


def registered(name: str, kind: type[D]) -> D:
    """The domain ``name`` from a fresh plugin manager, checked to be a ``kind``."""
    domain = new_plugin_manager(load_entrypoints=False).registry.domain(name)
    assert isinstance(domain, kind)
    return domain
