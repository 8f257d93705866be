"""Archivers and compressors: tar, gzip (gunzip, zcat), zip and unzip (importing registers them)."""

from __future__ import annotations

from . import gzip, infozip, tar

__all__ = ["gzip", "infozip", "tar"]
