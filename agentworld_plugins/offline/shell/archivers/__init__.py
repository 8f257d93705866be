"""Archivers and compressors: tar, gzip (gunzip, zcat), zip and unzip (importing registers them)."""

from __future__ import annotations

from . import gzip, tar, unzip, zip

__all__ = ["gzip", "tar", "unzip", "zip"]
