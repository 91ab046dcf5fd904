// The quality bench's sharp contender (bench/quality): each finished picture (a PNG
// gallop made) encoded with sharp's defaults, JPEG (quality 80, 4:2:0, its mozjpeg
// build) and WebP (quality 80), one after another.
//   node sharp-defaults.js OUTDIR FILE.png...
'use strict';
const path = require('path');
const sharp = require('sharp');

async function main() {
  const [out, ...files] = process.argv.slice(2);
  sharp.concurrency(1);
  for (const file of files) {
    const stem = path.basename(file, '.png');
    await sharp(file).jpeg().toFile(path.join(out, `${stem}.jpg`));
    await sharp(file).webp().toFile(path.join(out, `${stem}.webp`));
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
