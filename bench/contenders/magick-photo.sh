#!/bin/sh
# One photo of the ImageMagick / GraphicsMagick job (run by magick-job.sh through xargs).
set -eu
in=$1
b=${in##*/}
out="$MJ_OUT/${b%.*}.jpg"
font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
band=0
case $MJ_JOB in *,caption,*) band=150 ;; esac

if [ "$MJ_TOOL" = im ]; then
  set -- convert-im6.q16 -define jpeg:size=1080x1350 "$in" -auto-orient \
    -resize '1080x1350^' -gravity center -extent 1080x1350
  if [ $band -gt 0 ]; then
    caption=$(identify-im6.q16 -ping -format '%[EXIF:ImageDescription]' "$in")
    set -- "$@" \( -size 1080x150 'xc:rgba(0,0,0,0.5)' \) -gravity South -geometry +0+0 -composite \
      \( -size 996x150 -background none -fill white -font "$font" -pointsize 28 \
         -gravity West "caption:$caption" \) -gravity SouthWest -geometry +42+0 -composite
  fi
  if [ -n "$MJ_WM" ]; then
    set -- "$@" "$MJ_WM" -gravity SouthEast -geometry +24+$((24 + band)) -composite
  fi
  exec "$@" -strip -quality 85 -sampling-factor 4:2:0 -define jpeg:optimize-coding=true "$out"
fi

# GraphicsMagick: no parenthesised stacks and no word wrap; overlays are drawn,
# and the caption is wrapped by character count (about 68 DejaVu Sans 28 px
# characters of plain prose fit in 996 px).
set -- gm convert -size 1080x1350 "$in" -auto-orient \
  -resize '1080x1350^' -gravity center -extent 1080x1350 -gravity NorthWest
if [ $band -gt 0 ]; then
  caption=$(gm identify -format '%[EXIF:ImageDescription]' "$in")
  set -- "$@" -fill '#00000080' -draw "rectangle 0,1200 1079,1349" \
    -font "$font" -pointsize 28 -fill white
  lines=$(printf '%s\n' "$caption" | fold -s -w 68)
  n=$(printf '%s\n' "$lines" | wc -l)
  y=$((1200 + (150 - n * 33) / 2 + 26))   # first baseline: 33 px lines, 26 px ascent
  while IFS= read -r line; do
    line=$(printf '%s' "$line" | sed -e 's/[[:space:]]*$//' -e 's/\\/\\\\/g' -e 's/"/\\"/g')
    set -- "$@" -draw "text 42,$y \"$line\""
    y=$((y + 33))
  done <<LINES
$lines
LINES
fi
if [ -n "$MJ_WM" ]; then
  set -- "$@" -draw "image Over $((1080 - 24 - 162)),$((1350 - band - 24 - 54)) 0,0 '$MJ_WM'"
fi
exec "$@" -strip -quality 85 -sampling-factor 2x2 -define jpeg:optimize-coding=true "$out"
