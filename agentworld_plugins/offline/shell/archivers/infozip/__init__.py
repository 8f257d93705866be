"""zip and unzip (Info-ZIP zip 3.0, UnZip 6.00) over the zip format of ``archive``."""

from __future__ import annotations

from . import unzip, zip

__all__ = ["unzip", "zip"]
