#!/usr/bin/python3
"""The quality bench's section of RESULTS.md (bench/quality writes the data).

    quality-table.py WORK TARGET SHARP_VERSION PICTURE_PHOTO CORPUS...

Reads WORK/CORPUS/scores.tsv (contender, extension, photo, bytes, file, score in
dB, seconds one comparison took), WORK/CORPUS/times/*.time (GNU time: wall user
sys), WORK/CORPUS/auto.json (gallop's report: each file's quality and encodes)
and WORK/reference.tsv (quality-ref.py); computes plain SSIM (Wang et al., on
the grey of the sRGB values, scikit-image) of every file against its finished
picture; prints markdown. With QUALITY_PLAIN_SSIM=0 in the environment plain SSIM is
left out (it is most of this script's time: about 2 s a file on a loaded machine)."""
import json
import os
import statistics as st
import sys

import numpy as np
from skimage.color import rgb2gray
from skimage.io import imread
from skimage.metrics import structural_similarity

work, target, sharp_version, picture = sys.argv[1:5]
with_ssim = os.environ.get("QUALITY_PLAIN_SSIM", "1") != "0"
corpora = sys.argv[5:]
NAMES = {"q85": "fixed quality 85", "auto": f"auto ({target})",
         "sharp": f"sharp {sharp_version} defaults (q80)"}
FORMATS = {"jpg": "JPEG", "webp": "WebP"}


def grey(path):
    px = imread(path) if not path.endswith(".webp") else None
    if px is None:
        return None
    px = px[..., :3] if px.ndim == 3 else px
    return rgb2gray(px) if px.ndim == 3 else px / 255.0


def plain_ssim(ref, path):
    a = grey(ref)
    b = grey(path)
    if b is None:  # imageio cannot read WebP: the decoded PNG beside it
        decoded = path + ".png"
        if not os.path.exists(decoded):
            os.system(f"vips copy '{path}' '{decoded}'")
        b = grey(decoded)
    return structural_similarity(a, b, gaussian_weights=True, sigma=1.5,
                                 use_sample_covariance=False, data_range=1.0)


def median_time(path):
    rows = [list(map(float, line.split())) for line in open(path) if line.strip()]
    return st.median(r[0] for r in rows), st.median(r[1] + r[2] for r in rows)


out = []
say = out.append
say("## Quality by what the eye sees: output.quality auto (issue 42)\n")
say(f"The bench job's 1080x1350 outputs (bench/job.yaml without the contact sheet) in JPEG "
    f"and WebP: gallop at fixed quality 85, gallop at `quality: auto` with the default "
    f"target (`{target}`), and sharp {sharp_version}'s defaults (quality 80; JPEG through "
    f"its mozjpeg build) encoding the same finished pictures. Scores are against the "
    f"finished picture (gallop's PNG of it): gallop's metric in dB (MS-SSIM on lightness, "
    f"docs/quality.md; higher is closer) and plain SSIM (Wang et al., on grey, "
    f"scikit-image). Made by `make bench-quality` (bench/quality)"
    f"{'' if with_ssim else '; plain SSIM left out of this run (QUALITY_PLAIN_SSIM=0)'}. "
    f"Each format is held to its own level of the target (WebP 3.8 dB below JPEG: "
    f"docs/quality.md); the encodes counted are of the whole picture (a picture this size "
    f"is first searched on a sample of it, whose tries are not counted).\n")
budget = []
for corpus in corpora:
    d = os.path.join(work, corpus)
    rows = {}
    for line in open(os.path.join(d, "scores.tsv")):
        c, ext, photo, size, path, score, seconds = line.rstrip("\n").split("\t")
        rows.setdefault((c, ext), []).append((photo, int(size), float(score), path,
                                              float(seconds)))
    report = json.load(open(os.path.join(d, "auto.json")))
    chosen = {}
    for p in report["photos"]:
        for o in p["outputs"]:
            chosen[o["rel_path"]] = (o["quality"], o["encodes"])
    say(f"### {corpus} corpus: {len(rows[('q85', 'jpg')])} photos\n")
    say("| format | contender | total KB | vs fixed 85 | score dB worst / median / best "
        "| plain SSIM worst / median | quality chosen min / median / max | whole encodes per file |")
    say("|---|---|---:|---:|---|---|---|---:|")
    figures = {}
    for ext in ("jpg", "webp"):
        base = sum(r[1] for r in rows[("q85", ext)])
        for c in ("q85", "auto", "sharp"):
            r = rows[(c, ext)]
            total = sum(x[1] for x in r)
            scores = sorted(x[2] for x in r)
            ssims = sorted(plain_ssim(os.path.join(d, "ref", x[0] + ".png"), x[3])
                           for x in r) if with_ssim else None
            q = e = ""
            if c == "auto":
                qs = sorted(chosen[x[0] + "." + ext][0] for x in r)
                es = [chosen[x[0] + "." + ext][1] for x in r]
                q = f"{qs[0]} / {st.median(qs):g} / {qs[-1]}"
                e = f"{st.mean(es):.2f}"
            figures[(c, ext)] = (total, scores, ssims, r)
            plain = f"{ssims[0]:.4f} / {st.median(ssims):.4f}" if ssims else "not measured"
            say(f"| {FORMATS[ext]} | {NAMES[c]} | {total / 1000:.0f} | {total / base:.3f}× | "
                f"{scores[0]:.2f} / {st.median(scores):.2f} / {scores[-1]:.2f} | "
                f"{plain} | {q} | {e} |")
    say("")
    for ext in ("jpg", "webp"):
        a, q, s = figures[("auto", ext)], figures[("q85", ext)], figures[("sharp", ext)]
        saving = 1 - a[0] / q[0]
        bytes_text = (f"{saving * 100:.1f}% fewer bytes" if saving >= 0
                      else f"{-saving * 100:.1f}% more bytes")
        say(f"- {FORMATS[ext]}: auto against fixed 85: **{bytes_text}** "
            f"(budget: ≥ 20% fewer: **{'met' if saving >= 0.2 else 'missed'}**); worst file {a[1][0]:.2f} dB against {q[1][0]:.2f} "
            f"(budget: no worse: **{'met' if a[1][0] >= q[1][0] else 'missed'}**); median "
            f"{st.median(a[1]):.2f} against {st.median(q[1]):.2f} dB "
            f"({st.median(a[1]) - st.median(q[1]):+.2f} dB). Against sharp's defaults: "
            f"{a[0] / s[0]:.3f}× its bytes (budget: ≤ 1: **{'met' if a[0] <= s[0] else 'missed'}**), "
            f"worst file {a[1][0]:.2f} against {s[1][0]:.2f} dB "
            f"(**{'better' if a[1][0] > s[1][0] else 'not better'}**).")
    fixed_wall, fixed_cpu = median_time(os.path.join(d, "times", "q85.time"))
    auto_wall, auto_cpu = median_time(os.path.join(d, "times", "auto.time"))
    n_files = sum(len(figures[("auto", ext)][3]) for ext in ("jpg", "webp"))
    encodes = sum(v[1] for v in chosen.values())
    score_s = st.mean(x[4] for ext in ("jpg", "webp") for x in figures[("q85", ext)][3])
    say(f"- Time (medians of the timed runs, both formats in one run): fixed 85 "
        f"{fixed_wall:.2f} s wall, {fixed_cpu:.2f} s CPU; auto {auto_wall:.2f} s wall, "
        f"{auto_cpu:.2f} s CPU: **{auto_wall / fixed_wall:.2f}× the wall time, "
        f"{auto_cpu / fixed_cpu:.2f}× the CPU** (budget: ≤ 1.6×: "
        f"**{'met' if auto_cpu / fixed_cpu <= 1.6 else 'missed'}**). Where auto's extra "
        f"{auto_cpu - fixed_cpu:.1f} CPU s go: {encodes} whole encodes for {n_files} files "
        f"({encodes / n_files:.2f} each, each decoded and scored whole) and the tries on "
        f"each picture's sample; one comparison of a "
        f"1080x1350 picture took {score_s * 1000:.0f} ms of wall time in this run (a shared "
        f"machine: the ratios are the figures to read). How the time splits between "
        f"encoders and metric is in docs/quality.md (callgrind).\n")
ref_lines = [line.rstrip("\n") for line in open(os.path.join(work, "reference.tsv"))]
say(f"**The metric against scikit-image** (bench/quality-ref.py): {len(ref_lines) - 2} pairs "
    f"(three photos of each corpus, at 85 and auto, JPEG and WebP); each scale's SSIM from "
    f"scikit-image's `structural_similarity` (Gaussian window, sigma 1.5) on the same "
    f"lightness planes, MS-SSIM from scipy's Gaussian filter. {ref_lines[-1]}.\n")
say(f"![The same photo at fixed 85 and auto](quality-example.png)\n")
say(f"*`{picture}` of the {corpora[0]} corpus, where auto's JPEG saves the most against fixed "
    f"85: a 400x300 crop of the output at 2x, each with its size and score.*\n")
print("\n".join(out))
