#!/usr/bin/env python3
"""quality-grain.py: reads quality-grain's lines (stdin: its walk, then any `at` lines) and
says whether the score at which a photo reaches butteraugli distance DIST moves with its grain
(docs/quality.md, "A target that moves with the grain"; bench/quality-grain.sh runs it).

    quality-grain.py FMT DIST < walk.tsv [at.tsv]

For each photo: its grain (Immerkaer sigma of L*: whole, tiles' median, tiles' 10th
percentile), fixed 85's distance, and the score (dB) at DIST, read linearly between the two
qualities that bracket it. Then, per grain measure, the correlation with that score over all
photos and within each set (the set is the name's prefix: s = 1080 px, m = 12 MP, trip); a
rule target = level - min(cap, k * max(0, grain - g0)) fitted on one corpus + trip and tried
on the other, with butteraugli's distances of the files the rule and a fixed target would
choose (`need` lines: the photo and quality still to measure with `quality-grain at`); and the
same scene's move between the corpora.
"""
import math
import statistics as st
import sys

fmt, dist = sys.argv[1], float(sys.argv[2])
grain, rows, measured_ba = {}, {}, {}
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if f[0] == "grain":
        grain[f[1]] = [float(x) for x in f[2:]]   # a later line (more measures) wins
    elif f[0] == "q" and f[2] == fmt:
        rows.setdefault(f[1], []).append(
            (int(f[3]), int(f[4]), float(f[5]), None if f[6] == "-" else float(f[6])))
        if f[6] != "-":
            measured_ba[(f[1], int(f[3]))] = float(f[6])
    elif f[0] == "at" and f[2] == fmt:
        measured_ba[(f[1], int(f[3]))] = float(f[6])


def corpus(name):
    return "trip" if name.startswith("trip") else name[0]


at, q85 = {}, {}
for name, rs in rows.items():
    measured = [r for r in rs if r[3] is not None]
    for r in measured:
        if r[0] == 85:
            q85[name] = r[3]
    for a, b in zip(measured, measured[1:]):
        if (a[3] > dist) != (b[3] > dist):
            t = (dist - a[3]) / (b[3] - a[3])
            at[name] = a[2] + t * (b[2] - a[2])
            break

names = sorted(at)
print(f"# {fmt}: score at butteraugli {dist} (3-norm); {len(names)} photos of {len(rows)}")
labels = ["imm_whole", "imm_p50", "imm_p10", "ce_rms", "ce_p50"]
labels = labels[:min(len(grain[n]) for n in names)]
print("photo\tset\tq85_ba\tdB_at_D\t" + "\t".join(labels))
for n in names:
    print(f"{n}\t{corpus(n)}\t{q85.get(n, float('nan')):.3f}\t{at[n]:.2f}\t"
          + "\t".join(f"{v:.3f}" for v in grain[n][:len(labels)]))


def corr(xs, ys):
    if len(xs) < 3:
        return float("nan")
    mx, my = st.mean(xs), st.mean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


sets = sorted({corpus(n) for n in names})
print("\nmeasure\tall\t" + "\t".join(sets))
for k, label in enumerate(labels):
    cells = [corr([grain[n][k] for n in names], [at[n] for n in names])]
    for s in sets:
        sel = [n for n in names if corpus(n) == s]
        cells.append(corr([grain[n][k] for n in sel], [at[n] for n in sel]))
    print(label + "\t" + "\t".join(f"{c:+.2f}" for c in cells))
print("set\tdB_at_D median (sd)\tq85 distance median")
for s in sets:
    sel = [n for n in names if corpus(n) == s]
    q = [q85[n] for n in sel if n in q85]
    print(f"{s}\t{st.median([at[n] for n in sel]):.2f} ({st.pstdev([at[n] for n in sel]):.2f})"
          f"\t{st.median(q) if q else float('nan'):.3f}")


def rule(g, k, g0, cap):
    return min(cap, k * max(0.0, g - g0))


def fit(sel, k_idx):
    """dB_at_D = level - min(cap, k * max(0, g - g0)), least squares over a grid of k, g0 and
    cap (level: the mean given the rest)."""
    best = None
    gs = sorted(grain[n][k_idx] for n in sel)
    ys = [at[n] for n in sel]
    for g0 in [0.0] + gs[: len(gs) // 2]:
        for cap in [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 1e9]:
            for ki in range(0, 201):
                k = ki * 0.05
                fs = [rule(grain[n][k_idx], k, g0, cap) for n in sel]
                level = st.mean([y + f for y, f in zip(ys, fs)])
                sse = sum((y - level + f) ** 2 for y, f in zip(ys, fs))
                if best is None or sse < best[0] - 1e-9:
                    best = (sse, level, k, g0, cap)
    return best


def choose(name, target):
    """the lowest walked quality whose score meets target (the search's answer, to 2 steps)"""
    for r in sorted(rows[name]):
        if r[2] >= target:
            return r[0]
    return max(r[0] for r in rows[name])


def spread(label, sel, qs):
    ds = [measured_ba.get((n, q)) for n, q in zip(sel, qs)]
    if any(d is None for d in ds):
        return f"{label}: {sum(d is None for d in ds)} to measure"
    return (f"{label}: median {st.median(ds):.2f} sd {st.pstdev(ds):.2f}"
            f" ({100 * st.pstdev(ds) / st.mean(ds):.0f}% of the mean) range {min(ds):.2f}-"
            f"{max(ds):.2f}")


needs = set()
print("\ncross-check: fit on TRAIN, residual sd on TEST against one level (the TRAIN median)")
for k_idx, label in enumerate(labels):
    for train_sets, test_set in [(("s", "trip"), "m"), (("m", "trip"), "s")]:
        train = [n for n in names if corpus(n) in train_sets]
        test = [n for n in names if corpus(n) == test_set]
        if not train or not test:
            continue
        f = fit(train, k_idx)
        if not f:
            continue
        _, level, k, g0, cap = f
        pred = [level - rule(grain[n][k_idx], k, g0, cap) for n in test]
        res = [at[n] - p for n, p in zip(test, pred)]
        flat = st.median([at[n] for n in train])
        res0 = [at[n] - flat for n in test]
        allnames = train + test
        pall = [at[n] - (level - rule(grain[n][k_idx], k, g0, cap)) for n in allnames]
        p0 = [at[n] - flat for n in allnames]
        print(f"{label}\t{'+'.join(train_sets)}->{test_set}\tlevel {level:.2f} k {k:.2f}"
              f" g0 {g0:.3f} cap {cap:g}"
              f"\ttest: bias {st.mean(res):+.2f} sd {st.pstdev(res):.2f} (fixed: bias"
              f" {st.mean(res0):+.2f} sd {st.pstdev(res0):.2f})"
              f"\tall: rms {math.sqrt(st.mean([r * r for r in pall])):.2f}"
              f" (fixed {math.sqrt(st.mean([r * r for r in p0])):.2f})")
        # The files each target chooses, and butteraugli's distance of them.
        q_rule = [choose(n, level - rule(grain[n][k_idx], k, g0, cap)) for n in allnames]
        q_flat = [choose(n, flat) for n in allnames]
        needs.update((n, q) for n, q in zip(allnames + allnames, q_rule + q_flat)
                     if (n, q) not in measured_ba)
        for sets_label, keep in [("test", lambda n: corpus(n) == test_set), ("all", lambda n: 1)]:
            idx = [i for i, n in enumerate(allnames) if keep(n)]
            sel = [allnames[i] for i in idx]
            print(f"\t{sets_label} distances: "
                  + spread(f"fixed {flat:.2f} dB", sel, [q_flat[i] for i in idx]) + "; "
                  + spread("rule", sel, [q_rule[i] for i in idx]))

for n, q in sorted(needs):
    print(f"need\t{n}\t{q}")

# The same scene in both corpora (s-IMG_n and m-IMG_n: the 12 MP one carries the corpus's
# sensor-like grain after downscaling): how far its score at the distance moves with its grain.
pairs = [(n, "m" + n[1:]) for n in names if corpus(n) == "s" and "m" + n[1:] in at]
if pairs:
    print("\nscene\tgrain 1080 px -> 12 MP (tiles' median)"
          "\tdB at the distance: 1080 px, 12 MP, moved")
    for s_name, m_name in pairs:
        print(f"{s_name[2:]}\t{grain[s_name][1]:.2f} -> {grain[m_name][1]:.2f}"
              f"\t{at[s_name]:.2f}\t{at[m_name]:.2f}\t{at[m_name] - at[s_name]:+.2f}")
    moved = [at[m] - at[s] for s, m in pairs if grain[s][1] < 0.3]
    if moved:
        print(f"scenes without grain of their own ({len(moved)}): median {st.median(moved):+.2f},"
              f" range {min(moved):+.2f} to {max(moved):+.2f}")
