#!/usr/bin/env bash
# make-corpus.sh DEST: the hostile photos of tests/e2e/test_hostile.c, made
# from one fixture so nothing large is kept in git. Every supported format
# whole, truncated and under another format's name; files that are no
# image at all; special files and links named like photos. Deterministic.
# Needs `vips` (libvips-tools), gzip, head.
set -euo pipefail
dest=${1:?usage: make-corpus.sh DEST}
here=$(cd "$(dirname "$0")" && pwd)
photo="$here/../../fixtures/trip/trip-01.jpg"
mkdir -p "$dest"
cd "$dest"

# Whole files of every format gallop reads, then each cut in half.
for ext in jpg png webp tif avif gif; do
  vips copy "$photo" "whole-$ext.$ext" >/dev/null
  size=$(stat -c %s "whole-$ext.$ext")
  head -c $((size / 2)) "whole-$ext.$ext" >"truncated-$ext.$ext"
done
# A JPEG cut inside its header, before any pixel.
head -c 300 whole-jpg.jpg >header-only.jpg

# Mislabelled: read by what they are, whatever their name says.
cp whole-png.png png-named.jpg
cp whole-jpg.jpg jpg-named.png

# Camera raws, forged (tests/support/gal_test_raw.c, the sizes, offsets and
# cuts in tests/hostile/raw/README.md): cut short, sensors no file can
# hold, pixels past the end, a broken preview, and raw signatures with
# nothing readable after them. libraw sees only what gallop took for a raw.
cp "$here"/raw/*.dng "$here"/raw/*.cr2 "$here"/raw/*.cr3 "$here"/raw/*.orf \
  "$here"/raw/*.raf "$here"/raw/*.rw2 .

# Not images, named like photos: refused before any decoder sees them.
printf '<svg xmlns="http://www.w3.org/2000/svg" width="9000" height="9000"><rect width="9" height="9"/></svg>' |
  gzip -9n | head -c 60 >svgz-named.jpg
printf '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>' >svg-named.png
printf '%%PDF-1.4\n%% not a photo\n' >pdf-named.jpg
printf 'just some text, no image here\n' >text-named.webp
: >empty.jpg
printf '\x00\x01\x02\x03\x04\x05\x06\x07garbage' >garbage.jpg

# Special files and link games: never opened, never followed out.
mkfifo fifo.jpg
ln -s nowhere.jpg dangling.jpg
ln -s loop-b.jpg loop-a.jpg
ln -s loop-a.jpg loop-b.jpg
ln -s /dev/zero zero.jpg
