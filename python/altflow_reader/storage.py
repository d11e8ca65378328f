"""Object stores through pyarrow's file systems: local paths, `file://`, `s3://`, `gs://`, `abfs://`.

S3 credentials and region come from the usual AWS environment and files; an S3-compatible endpoint
from `AWS_ENDPOINT_URL` (the AWS SDKs' name) or `AWS_ENDPOINT` (the name altflow's writer reads), so
one environment serves the pipeline and the trainer.
"""
from __future__ import annotations

import os
import threading
from typing import Dict, Optional, Tuple
from urllib.parse import urlparse

import pyarrow.fs as pafs

_lock = threading.Lock()
_cache: Dict[Tuple[str, str, str], pafs.FileSystem] = {}


def _s3(options: Optional[dict]) -> pafs.FileSystem:
    options = dict(options or {})
    endpoint = options.pop("endpoint_url", None) or os.environ.get("AWS_ENDPOINT_URL") \
        or os.environ.get("AWS_ENDPOINT")
    if endpoint:
        parsed = urlparse(endpoint)
        options.setdefault("endpoint_override", parsed.netloc or parsed.path)
        options.setdefault("scheme", parsed.scheme or "https")
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        options.setdefault("region", region)
    return pafs.S3FileSystem(**options)


def resolve(url: str, options: Optional[dict] = None) -> Tuple[pafs.FileSystem, str]:
    """The file system holding `url` and the path of `url` in it. File systems are shared per
    scheme and bucket (they pool connections)."""
    parsed = urlparse(url)
    scheme = parsed.scheme
    if scheme in ("", "file") or len(scheme) == 1:  # a plain path (or a Windows drive letter)
        path = parsed.path if scheme == "file" else url
        return pafs.LocalFileSystem(), os.path.abspath(path)
    if scheme in ("s3", "s3a"):
        key = ("s3", parsed.netloc, repr(sorted((options or {}).items())))
        with _lock:
            if key not in _cache:
                _cache[key] = _s3(options)
            fs = _cache[key]
        return fs, parsed.netloc + parsed.path
    fs, path = pafs.FileSystem.from_uri(url)
    return fs, path


def join(base: str, name: str) -> str:
    """`base` (a directory path or URL) and `name` under it."""
    return base.rstrip("/") + "/" + name
