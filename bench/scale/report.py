#!/usr/bin/env python3
"""report.py: bench/SCALE.md from the rows bench/scale/run measured (bench/scale/README.md).

Each row: photos, then "wall cpu rss_kb" of the plan, the merge and the rerun (the best of
the runs), the merged manifest's bytes and lines, the generator's seconds, the load
average before and after the row, and "wall cpu rss_kb" of the two peers (find stat'ing
every photo and output, the rerun's floor; sort -m joining the parts' lines, the merge's).
Hand-written notes of the previous report (from the marker line on) are kept.
"""
import argparse
import datetime
import os
import platform

MARKER = "<!-- notes below: written by hand, kept by bench/scale/run -->"


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def mem_total_gib():
    with open("/proc/meminfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 2**20
    return 0


def fs_type(path):
    best, kind = "", "?"
    with open("/proc/mounts", encoding="utf-8") as f:
        for line in f:
            _, mnt, typ = line.split()[:3]
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) > len(best):
                best, kind = mnt, typ
    return f"{kind} ({best})"


def ratio(a, b):
    return f"{a / b:.1f}×" if b > 0 else "—"


def table(rows, key, title, extra=None):
    """One measurement's table: figures, growth against the row above, per photo."""
    head = ("| photos | wall s | CPU s | peak RSS MB | × photos | × wall | × CPU | × RSS "
            "| CPU µs / photo | RSS KB / photo |")
    rule = "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if extra:
        head += "".join(f" {h} |" for h, _ in extra)
        rule += "---:|" * len(extra)
    out = [f"### {title}", "", head, rule]
    prev = None
    for r in rows:
        wall, cpu, rss = r[key]
        n = r["n"]
        line = (f"| {n:,} | {wall:.2f} | {cpu:.2f} | {rss / 1024:.0f} | "
                + (f"{ratio(n, prev['n'])} | {ratio(wall, prev[key][0])} | "
                   f"{ratio(cpu, prev[key][1])} | {ratio(rss, prev[key][2])} | "
                   if prev else "— | — | — | — | ")
                + f"{cpu / n * 1e6:.1f} | {rss / n:.2f} |")
        for _, fmt in extra or ():
            line += f" {fmt(r, prev)} |"
        out.append(line)
        prev = r
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", required=True)
    ap.add_argument("--shards", type=int, required=True)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--elapsed", type=int, required=True)
    ap.add_argument("--gallop-version", required=True)
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--previous", help="the report this one replaces (its notes are kept)")
    args = ap.parse_args()

    rows = []
    skipped = []
    with open(args.rows, encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if c[1] == "skipped":
                skipped.append(f"- {int(c[0]):,} photos: not measured: {c[2]}.")
                continue
            fig = lambda s: tuple(float(x) for x in s.split())
            rows.append({"n": int(c[0]), "plan": fig(c[1]), "merge": fig(c[2]),
                         "rerun": fig(c[3]), "manifest_bytes": int(c[4]),
                         "manifest_lines": int(c[5]), "gen_s": float(c[6]),
                         "load": (c[7], c[8]), "floor": fig(c[9]), "bytes": fig(c[10])})

    manifest_cols = [
        ("manifest MB", lambda r, p: f"{r['manifest_bytes'] / 2**20:.1f}"),
        ("manifest bytes / photo", lambda r, p: f"{r['manifest_bytes'] / r['n']:.0f}"),
    ]
    # Against a peer of the same row: how much more than stat'ing the files (find), or
    # than merging the parts' lines into one file (sort -m), it costs.
    def against(key, peer, name):
        return [(f"× {name} wall", lambda r, p: ratio(r[key][0], r[peer][0])),
                (f"× {name} CPU", lambda r, p: ratio(r[key][1], r[peer][1]))]
    now = datetime.datetime.now().astimezone()
    out = [
        "# gallop at scale, by simulation",
        "",
        f"Made by `make bench-scale` (`bench/scale/run`, see "
        f"[scale/README.md](scale/README.md)) on {now:%Y-%m-%d %H:%M %Z}, in "
        f"{args.elapsed // 60} min {args.elapsed % 60} s (the build not counted).",
        "",
        f"- machine: {os.cpu_count()} cores ({cpu_model()}), {mem_total_gib():.0f} GiB, "
        f"{platform.system()} {platform.release()}",
        f"- {args.gallop_version}, Release build",
        f"- files on {fs_type(args.scratch)}: N empty photos in day folders of 1,000 "
        f"(`YYYY/MM/DD/DSC_0000000.jpg`), their N empty outputs, and the {args.shards} "
        f"parts a finished `--shard K/{args.shards}` run leaves (SQLite databases: one `product` "
        f"row, its `about` as a real photo's, and one `result` row per photo), preset [scale/scale.yaml](scale/scale.yaml) (resize + "
        f"JPEG, no contact sheet)",
        f"- each figure is the best of {args.runs} runs, each measured on its own (wall, "
        f"user + system CPU, peak RSS from GNU time); stdout to /dev/null",
        "",
        "The machine is shared: **wall** time counts waiting for a core behind other "
        "people's work (load average below), so linearity is read from **CPU** time; "
        "a plan looks its photos up on as many threads as cores, a merge reads its parts, "
        "and a run decides its photos, on more than one, so their wall time can be below their CPU time; "
        "the peers, find and sort -m, run on one.",
        "",
        table(rows, "plan",
              f"Planning one shard of {args.shards}: `gallop run scale.yaml TREE -o EMPTY "
              f"--shard 1/{args.shards} --dry-run -q`"),
        "",
        table(rows, "merge",
              f"Merging the {args.shards} parts: `gallop merge scale.yaml -o OUT`",
              manifest_cols + against("merge", "bytes", "sort -m")),
        "",
        table(rows, "rerun",
              "A plain dry run with the merged manifest in place: `gallop run scale.yaml "
              "TREE -o OUT --dry-run -q` (every photo up to date)",
              against("rerun", "floor", "find")),
        "",
        table(rows, "floor",
              "The rerun's peer, the filesystem's floor: `find TREE OUT -type f -printf "
              "'%s %T@\\n'` (each photo's and each output's size and time: one stat a file, "
              "the least an incremental run must read; one thread)"),
        "",
        table(rows, "bytes",
              f"The merge's peer: `LC_ALL=C sort -m PARTS -o FILE` (the {args.shards} parts' "
              "lines merged in order into one file, as a script joining sorted parts would, "
              "without a check; a merge without contact sheets stats no photo, so find is no "
              "floor for it; one thread)"),
        "",
        "### The rows' circumstances",
        "",
        "| photos | generating s | manifest lines | load average before → after |",
        "|---:|---:|---:|---|",
    ]
    for r in rows:
        out.append(f"| {r['n']:,} | {r['gen_s']:.1f} | {r['manifest_lines']:,} | "
                   f"{r['load'][0]} → {r['load'][1]} |")
    if skipped:
        out += [""] + skipped
    out.append("")
    out.append("Targets (issue 16): planning a shard and loading and merging manifests of "
               "1M entries each within a few seconds and a few hundred MB, growing linearly.")
    notes = None
    if args.previous and os.path.exists(args.previous):
        with open(args.previous, encoding="utf-8") as f:
            text = f.read()
        if MARKER in text:
            notes = text[text.index(MARKER):].rstrip("\n")
    out += ["", notes or f"{MARKER}\n\n## Notes\n\n(none yet)"]
    print("\n".join(out))


if __name__ == "__main__":
    main()
