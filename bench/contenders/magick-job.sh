#!/usr/bin/env bash
# The benchmark job with ImageMagick 6 or GraphicsMagick (bench/README.md has the job):
# the watermark is scaled and faded once, then one convert per photo, two at a time
# (xargs -P2, one thread each), then montage for the contact sheet.
#   magick-job.sh im|gm JOB WATERMARK OUTDIR FILE...
# JOB: comma-separated levels: resize (always), watermark, caption, sheet.
set -euo pipefail
tool=$1 job=$2 wm=$3 outdir=$4; shift 4
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export MJ_TOOL=$tool MJ_JOB=",$job," MJ_OUT=$outdir MJ_WM=
case $tool in
  im) export MAGICK_THREAD_LIMIT=1   # two processes on two cores: no OpenMP inside each
      convert=(convert-im6.q16) montage=(montage-im6.q16) ;;
  gm) export OMP_NUM_THREADS=1
      convert=(gm convert) montage=(gm montage) ;;
  *) echo "magick-job: im or gm, not $tool" >&2; exit 2 ;;
esac

if [[ $MJ_JOB == *,watermark,* ]]; then
  MJ_WM="$outdir/.watermark.png"
  if [[ $tool == im ]]; then
    "${convert[@]}" "$wm" -resize 162x -channel A -evaluate multiply 0.4 +channel "png32:$MJ_WM"
  else   # GM keeps opacity (255 - alpha): alpha * 0.4 is opacity * 0.4 + 60%
    "${convert[@]}" "$wm" -resize 162x -operator Opacity Multiply 0.4 \
      -operator Opacity Add 60% "png32:$MJ_WM"
  fi
fi

printf '%s\0' "$@" | xargs -0 -n 1 -P 2 "$here/magick-photo.sh"
rm -f "$outdir/.watermark.png"

if [[ $MJ_JOB == *,sheet,* ]]; then
  outputs=()
  for f in "$@"; do b=${f##*/}; outputs+=("$outdir/${b%.*}.jpg"); done
  font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
  if [[ $tool == im ]]; then hint=(-define jpeg:size=400x500) sub=4:2:0; else hint=(-size 400x500) sub=2x2; fi
  # settings before the images (GraphicsMagick applies them only to the images that
  # follow), -strip after them (before them, GraphicsMagick also drops the labels)
  "${montage[@]}" "${hint[@]}" -label '%f' -font "$font" -pointsize 18 \
    -tile 6x -geometry 200x200+4+4 -background white -quality 85 -sampling-factor "$sub" \
    "${outputs[@]}" -strip "$outdir/contact-1.jpg"
fi
