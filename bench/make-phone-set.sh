#!/usr/bin/env bash
# Make the phone set from the bench corpus: its first N 12 MP JPEGs as HEIC, as a phone
# writes them, made with libvips (heifsave, x265), each at 8 and at 10 bits.
#
#   make-phone-set.sh CORPUS [N]     (N: 8 by default; about 20 s of CPU a file)
#
# CORPUS/phone/8bit/IMG_0001.heic .. and CORPUS/phone/10bit/IMG_0001.heic ..: the same
# pictures and EXIF (caption, orientation) as CORPUS/12mp. Quality 50, effort 0: about
# 1.8 MB a file, the size of an iPhone's 12 MP HEIC. libvips writes no embedded thumbnail
# (phones do; docs/presets.md, "HEIC and AVIF", measures that path separately).
set -euo pipefail
corpus=${1:?usage: make-phone-set.sh CORPUS [N]}
n=${2:-8}
for bits in 8 10; do
  mkdir -p "$corpus/phone/${bits}bit"
  for f in $(ls "$corpus/12mp"/IMG_*.jpg | head -n "$n"); do
    out="$corpus/phone/${bits}bit/$(basename "${f%.jpg}").heic"
    [[ -s $out ]] && continue
    vips heifsave "$f" "$out.part.heic" --Q 50 --bitdepth "$bits" --effort 0
    mv "$out.part.heic" "$out"
  done
done
echo "make-phone-set: $n + $n HEICs in $corpus/phone" >&2
