"""Shards as altflow announces them: the protobuf `ShardAnnouncement` of the `shards` topic.

The message is small and fixed (src/record.rs), so it is decoded here from the protobuf wire format
rather than through a generated module and the protobuf runtime.
"""
from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Optional, Tuple

# Field number -> (attribute, kind). Kinds: "str" (length-delimited UTF-8), "uint", "int32",
# "int64" (varints; negative int32/int64 are ten-byte two's complement on the wire).
_FIELDS = {
    1: ("url", "str"),
    2: ("index_url", "str"),
    3: ("rows", "uint"),
    4: ("bytes", "uint"),
    5: ("partition", "int32"),
    6: ("first_offset", "int64"),
    7: ("last_offset", "int64"),
}


class AnnouncementError(ValueError):
    """A `shards` message that is not a ShardAnnouncement."""


@dataclass(frozen=True)
class Shard:
    """One finished shard: its tar, its Parquet index, and where it was announced."""

    url: str
    """URL of the tar (`s3://…`, `gs://…`, `file:///…`)."""
    index_url: str
    """URL of its Parquet index."""
    rows: int = 0
    """Samples in the shard (0 when unknown, e.g. from a listing)."""
    partition: int = 0
    """The writer's input partition."""
    first_offset: int = 0
    """The writer's first input offset in the shard."""
    announced: Optional[Tuple[int, int]] = None
    """(partition, offset) of the announcement in the `shards` topic; None when listed."""
    timestamp_ms: Optional[int] = None
    """When it was announced (the message's timestamp) or, when listed, last modified."""

    @property
    def name(self) -> str:
        """The tar's file name: a shard's identity (the same in every announcement of it)."""
        return posixpath.basename(self.url)


def _varint(data: bytes, pos: int) -> Tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data):
            raise AnnouncementError("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise AnnouncementError("varint longer than ten bytes")


def _signed(value: int, bits: int) -> int:
    value &= (1 << 64) - 1
    if value >= 1 << 63:
        value -= 1 << 64
    if bits == 32:
        value = ((value + (1 << 31)) % (1 << 32)) - (1 << 31)
    return value


def decode(payload: bytes) -> dict:
    """Decodes a ShardAnnouncement into a dict of its fields (absent fields: their defaults)."""
    out = {"url": "", "index_url": "", "rows": 0, "bytes": 0, "partition": 0,
           "first_offset": 0, "last_offset": 0}
    pos = 0
    while pos < len(payload):
        key, pos = _varint(payload, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(payload, pos)
        elif wire == 2:
            size, pos = _varint(payload, pos)
            if pos + size > len(payload):
                raise AnnouncementError(f"field {number} runs past the end")
            value, pos = payload[pos:pos + size], pos + size
        elif wire == 1:
            value, pos = payload[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = payload[pos:pos + 4], pos + 4
        else:
            raise AnnouncementError(f"wire type {wire} of field {number}")
        if number not in _FIELDS:
            continue  # a field added later: skip it, as protobuf readers do
        name, kind = _FIELDS[number]
        if kind == "str":
            if wire != 2:
                raise AnnouncementError(f"field {name} is not a string")
            out[name] = value.decode("utf-8")
        else:
            if wire != 0:
                raise AnnouncementError(f"field {name} is not a varint")
            out[name] = _signed(value, 32 if kind == "int32" else 64) if kind != "uint" else value
    return out


def _encode_varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode(fields: dict) -> bytes:
    """Encodes a ShardAnnouncement (for tests and tools that announce shards themselves)."""
    out = bytearray()
    for number, (name, kind) in _FIELDS.items():
        value = fields.get(name)
        if value in (None, "", 0):
            continue
        if kind == "str":
            data = value.encode("utf-8")
            out += _encode_varint(number << 3 | 2) + _encode_varint(len(data)) + data
        else:
            out += _encode_varint(number << 3) + _encode_varint(value)
    return bytes(out)
