#!/usr/bin/env python3
"""Rewrites real .pstrace files as small fuzz seeds: zstd chunks decompressed (codec 0, so byte
mutations reach the payload decoders instead of the decompressor), checksums recomputed, runs of
collector records (u8 kind, varint length, body) cut at a record boundary to a byte budget, and
optionally without the end index (the reader then scans, as for a killed writer).

  tests/fuzz/make_pstrace_seeds.py --list FILE
  tests/fuzz/make_pstrace_seeds.py [--budget N] [--no-index] [--types 2,3,15] IN OUT
Needs the zstd command-line tool."""
import argparse
import struct
import subprocess
import sys

MAGIC, END = b"PSTRACE\0", b"PSTREND\0"
NAMES = {1: "index", 2: "metadata", 3: "processes", 4: "devices", 5: "tracks", 6: "slices", 7: "counters",
         8: "flows", 9: "collectives", 10: "topology", 11: "probe_records", 12: "links", 13: "warnings",
         14: "launch_configs", 15: "cupti_records", 16: "nccl_records"}


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


TABLE = _crc_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def chunks(data):
    at = 32
    while len(data) - at >= 20:
        typ, codec, length, crc = struct.unpack_from("<IIQI", data, at)
        if at + 20 + length > len(data):
            break
        yield at, typ, codec, data[at + 20: at + 20 + length]
        at += 20 + length


def varint(data, at):
    v, shift = 0, 0
    while True:
        b = data[at]
        at += 1
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            return v, at
        shift += 7


def cut_records(payload, budget):
    """Whole records (u8 kind, v body_bytes, body) up to `budget` bytes."""
    at = 0
    while at < len(payload):
        n, body = varint(payload, at + 1)
        if body + n > budget:
            break
        at = body + n
    return payload[:at]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--budget", type=int, default=6000, help="bytes of collector records kept per chunk")
    ap.add_argument("--no-index", action="store_true")
    ap.add_argument("--types", default="", help="chunk types to keep (default: all)")
    ap.add_argument("--max-chunks", type=int, default=0, help="chunks kept per type (0: all)")
    ap.add_argument("input")
    ap.add_argument("output", nargs="?")
    a = ap.parse_args()
    data = open(a.input, "rb").read()
    assert data[:8] == MAGIC, "not a .pstrace file"
    if a.list:
        for at, typ, codec, payload in chunks(data):
            print(f"{at:8d} {NAMES.get(typ & 0x7FFFFFFF, typ):14s} codec {codec} stored {len(payload)}")
        return
    keep = {int(t) for t in a.types.split(",") if t}
    per_type = {}
    out = bytearray(data[:32])
    index = []
    for at, typ, codec, payload in chunks(data):
        if typ == 1 or (keep and typ not in keep):
            continue
        per_type[typ] = per_type.get(typ, 0) + 1
        if a.max_chunks and per_type[typ] > a.max_chunks:
            continue
        if codec == 1:
            payload = subprocess.run(["zstd", "-d", "-c", "-q"], input=payload, stdout=subprocess.PIPE, check=True).stdout
        if typ in (15, 16):
            payload = cut_records(payload, a.budget)
        index.append((len(out), typ, len(payload)))
        out += struct.pack("<IIQI", typ, 0, len(payload), crc32c(payload)) + payload
    if not a.no_index:
        body = bytearray()
        # index payload: v n, n x (u64 offset, u32 type, u64 length)
        n = len(index)
        while True:
            b = n & 0x7F
            n >>= 7
            body.append(b | (0x80 if n else 0))
            if not n:
                break
        for off, typ, length in index:
            body += struct.pack("<QIQ", off, typ, length)
        index_at = len(out)
        out += struct.pack("<IIQI", 1, 0, len(body), crc32c(body)) + body
        out += struct.pack("<Q", index_at) + END
    open(a.output, "wb").write(out)
    print(f"{a.output}: {len(out)} bytes, {len(index)} chunks", file=sys.stderr)


if __name__ == "__main__":
    main()
