#!/usr/bin/env python3
"""gen.py: the simulated archive of the scale benchmark (bench/scale/README.md).

Makes, under ROOT (a tmpfs is best):

  ROOT/in/YYYY/MM/DD/DSC_0000000.jpg   COUNT empty photos, PER_FOLDER a day
  ROOT/out/DSC_0000000.jpg             the empty output each would have
  ROOT/parts/.gallop-manifest.K-of-N.db
                                       the N parts a finished `gallop run PRESET
                                       ROOT/in -o ROOT/out --shard K/N` would
                                       have left: per photo one `product` row and
                                       one `result` row, in shard K's part

The parts are SQLite databases of gallop's schema (pipeline/store.c), each a copy
of TEMPLATE, a part a real sharded run of the same preset wrote (bench/scale/run
makes one from three fixture photos), emptied and filled: what only gallop knows --
the schema, the preset's digest and recipe lines, gallop's version -- is its. Every record
is true: the files are empty, so sizes are 0, a photo's content digest is XXH3-128("")
and an output's SHA-256(""), as gallop records them, and times are those set on the files; after `gallop merge`, `gallop run --check` is 0.

A photo's shard is gallop's (pipeline/shard.c): jump consistent hash of the 64-bit
FNV-1a of its path within the input folder.
"""
import argparse
import datetime
import hashlib
import os
import shutil
import sqlite3
import sys
import time

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK64 = (1 << 64) - 1
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
# What gallop records an (empty) photo by: its XXH3-128 (pipeline/digest.h; Python's
# hashlib has no XXH3, and every photo here is empty). An output is recorded by SHA-256.
EMPTY_XXH3 = "99aa06d3014798d86001c324468d497f"


def fnv1a64(data, h=FNV_OFFSET):
    """FNV-1a, 64 bits, continuing from state h (so a shared prefix is hashed once)."""
    for byte in data:
        h = ((h ^ byte) * FNV_PRIME) & MASK64
    return h


def jump_hash(key, buckets):
    """Lamping and Veach's jump consistent hash, with C's double arithmetic (shard.c)."""
    bucket, nxt = -1, 0
    while nxt < buckets:
        bucket = nxt
        key = (key * 2862933555777941757 + 1) & MASK64
        nxt = int(float(bucket + 1) * (float(1 << 31) / float((key >> 33) + 1)))
    return bucket


def shard_of(rel, shards):
    """gal__shard_of: 1-based."""
    return 1 if shards <= 1 else jump_hash(fnv1a64(rel.encode()), shards) + 1


def read_template(path):
    """The preset's digest and gallop's version, from a real part."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        row = db.execute("SELECT recipe, version FROM shard").fetchone()
        db.close()
    except sqlite3.Error as e:
        sys.exit(f"gen.py: {path}: not a gallop part ({e})")
    if not row:
        sys.exit(f"gen.py: {path}: no shard row (a part of a shard that ran is needed)")
    return row


def touch(path, mtime_ns):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.utime(fd, ns=(mtime_ns, mtime_ns))
    finally:
        os.close(fd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, required=True, help="photos")
    ap.add_argument("--root", required=True, help="folder to make (in/, out/, parts/)")
    ap.add_argument("--template", required=True, help="a part a real sharded run wrote")
    ap.add_argument("--shards", type=int, default=100)
    ap.add_argument("--per-folder", type=int, default=1000, help="photos per day folder")
    ap.add_argument("--captions", action="store_true",
                    help="give every photo a caption (~200 bytes, from an Instagram export), "
                         "in its record and its result, as a preset with a caption stage keeps")
    ap.add_argument("--no-about", dest="about", action="store_false",
                    help="leave out the about line a run records per photo (camera, lens, "
                         "exposure, colour, a 16x20 WebP placeholder: ~400 bytes); as the "
                         "bench did before 2026-11-28 11:30")
    ap.add_argument("--cwd", default=os.getcwd(),
                    help="the folder the shards ran from (their parts' inputs line)")
    args = ap.parse_args()

    digest, version = read_template(args.template)
    root = os.path.abspath(args.root)
    tree, out, parts = (os.path.join(root, d) for d in ("in", "out", "parts"))
    for d in (tree, out, parts):
        os.makedirs(d, exist_ok=True)
    rel_tree = os.path.relpath(tree, out)  # how the records name the inputs: ../in
    n, shards = args.count, args.shards
    started = time.monotonic()

    dbs = [None]
    for k in range(1, shards + 1):
        path = os.path.join(parts, f".gallop-manifest.{k}-of-{shards}.db")
        shutil.copyfile(args.template, path)
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.execute("DELETE FROM product")
        db.execute("DELETE FROM depend")
        db.execute("DELETE FROM result")
        dbs.append(db)
    products = [None] + [[] for _ in range(shards)]
    results = [None] + [[] for _ in range(shards)]
    counts = [0] * (shards + 1)
    day0 = datetime.date(2000, 1, 1)
    shot0 = 1_500_000_000 * 10**9         # first photo taken, ns
    made0 = 1_700_000_000 * 10**9         # outputs made, ns

    def flush(k):
        dbs[k].executemany("INSERT INTO product VALUES (?, 'file', ?, 0, ?, ?, ?, ?, 0, ?, ?, ?, "
                           "?, ?, ?, ?, 0, ?, NULL)", products[k])
        dbs[k].executemany("INSERT INTO result VALUES (?, ?, 'done', 'new', NULL, ?, ?, 0, ?, "
                           "?, ?, 0, ?, ?, 0, NULL, 0, 0, NULL, NULL, NULL, ?)", results[k])
        products[k].clear()
        results[k].clear()

    for first in range(0, n, args.per_folder):
        day = day0 + datetime.timedelta(days=first // args.per_folder)
        folder = f"{day.year:04d}/{day.month:02d}/{day.day:02d}"
        os.makedirs(os.path.join(tree, folder), exist_ok=True)
        prefix_hash = fnv1a64(f"{folder}/DSC_".encode())
        for i in range(first, min(n, first + args.per_folder)):
            name = f"DSC_{i:07d}.jpg"
            tail = f"{i:07d}.jpg"
            rel = f"{folder}/{name}"     # within the input folder: what shards hash
            k = 1 if shards <= 1 else jump_hash(fnv1a64(tail.encode(), prefix_hash), shards) + 1
            assert i != first or k == shard_of(rel, shards)
            in_mtime = shot0 + i * 10**9 + (i * 7919) % 10**9
            out_mtime = made0 + i * 10**6 + (i * 104729) % 10**6
            touch(os.path.join(tree, rel), in_mtime)
            touch(os.path.join(out, name), out_mtime)
            rel_in = f"{rel_tree}/{rel}"
            width, height = (683, 1024) if i % 5 == 4 else (1024, 683)
            name_key = f"{{stem}}.{{ext}}\t{i + 1}\t{n}"
            caption = source = None
            if args.captions:
                caption = (f"Day {i % 28 + 1} of the trip, photo {i}: the marathon through "
                           f"Kim Il Sung Square at dawn, runners and the crowd. #pyongyang "
                           f"#marathon #dprk #running #northkorea @koryotours @runner{i % 97}")
                source = f"instagram:/srv/exports/trip/posts_{i % 7 + 1}.json"
            about = None
            if args.about:
                about = "\n".join([
                    "camera=NIKON D750", "lens=24.0-120.0 mm f/4.0",
                    f"taken=2014-04-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{i * 7 % 60:02d}",
                    "f=8", f"shutter=1/{250 + i % 750}", f"iso={100 + i % 1500}", "focal_mm=35",
                    "orientation=1", f"color=#{i * 2654435761 % 16777216:06x}",
                    "placeholder=data:image/webp;base64,UklGRoYAAABXRUJQVlA4IHoAAABwBACdASoQABQ"
                    "APrVKnkonJCKhsAgA4BaJQBOmUI7gBUPrDadizoGqxQuuAADNb"
                    f"{i:010d}AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
                    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"])
            # product: output input in_mtime in_digest recipe version out_mtime out_sha
            #          W H name_key caption source about                    (store.c)
            products[k].append((name, rel_in, in_mtime, EMPTY_XXH3, digest, version, out_mtime,
                                EMPTY_SHA256, width, height, name_key, caption, source, about))
            # Timed as gallop times them: microseconds over 1e6 (exec.c, job.c).
            seconds = (50000 + i * 7919 % 1000 * 50) / 1e6
            hash_seconds = (100 + i * 104729 % 1000 // 10) / 1e6
            results[k].append((rel_in, name, width, height, EMPTY_SHA256, caption, source,
                               seconds, hash_seconds, EMPTY_XXH3))
            counts[k] += 1
            if len(products[k]) >= 4096:
                flush(k)

    total_bytes = 0
    cwd = os.path.relpath(os.path.abspath(args.cwd), out)
    for k in range(1, shards + 1):
        flush(k)
        dbs[k].execute("UPDATE shard SET k = ?, n = ?, cwd = ?, inputs = ?, forced = 0, "
                       "done = 1, results = ?", (k, shards, cwd, tree, counts[k]))
        dbs[k].commit()
        dbs[k].execute("VACUUM")
        dbs[k].close()
        total_bytes += os.path.getsize(os.path.join(parts, f".gallop-manifest.{k}-of-{shards}.db"))
    print(f"gen.py: {n} photos in {tree}, their outputs in {out}, {shards} parts "
          f"({total_bytes / 2**20:.1f} MiB, {min(counts[1:])}..{max(counts[1:])} photos each) "
          f"in {parts}; {time.monotonic() - started:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
