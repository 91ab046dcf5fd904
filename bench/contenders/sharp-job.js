#!/usr/bin/env node
// The benchmark job in sharp, two photos in flight (bench/README.md has the job).
//   node sharp-job.js JOB WATERMARK OUTDIR FILE...
// JOB: comma-separated levels: resize (always), watermark, caption, sheet.
'use strict';

const fs = require('fs');
const path = require('path');
const sharp = require('sharp');

const W = 1080, H = 1350;
const WM_WIDTH = 162, WM_MARGIN = 24, WM_OPACITY = 0.4;
const BAND_H = 150, CAPTION_PAD = 42, CAPTION_FONT = 'DejaVu Sans 28';
const SHEET = { columns: 6, tile: 200, gap: 8, label: 29, labelFont: 'DejaVu Sans 18', footer: 33 };
const IN_FLIGHT = Number(process.env.SHARP_IN_FLIGHT || 2);

const [job, watermarkPath, outdir, ...files] = process.argv.slice(2);
const levels = new Set(job.split(/[ ,]+/));

const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// EXIF ImageDescription (IFD0 tag 0x010e) from the raw EXIF block sharp hands out.
function imageDescription(exif) {
  if (!exif) return '';
  let t = exif.indexOf('Exif\0\0') === 0 ? 6 : 0;
  const le = exif.toString('latin1', t, t + 2) === 'II';
  const u16 = (o) => (le ? exif.readUInt16LE(t + o) : exif.readUInt16BE(t + o));
  const u32 = (o) => (le ? exif.readUInt32LE(t + o) : exif.readUInt32BE(t + o));
  const ifd = u32(4);
  for (let i = 0, n = u16(ifd); i < n; i++) {
    const e = ifd + 2 + i * 12;
    if (u16(e) !== 0x010e) continue;
    const count = u32(e + 4);
    const at = count <= 4 ? e + 8 : u32(e + 8);
    return exif.toString('utf8', t + at, t + at + count).replace(/\0.*$/s, '');
  }
  return '';
}

async function textLayer(text, font, width, align, colour) {
  const { data, info } = await sharp({
    text: { text: `<span foreground="${colour}">${escape(text)}</span>`, font, width, dpi: 72,
      rgba: true, wrap: 'word', align },
  }).raw().toBuffer({ resolveWithObject: true });
  return { input: data, raw: { width: info.width, height: info.height, channels: 4 },
    width: info.width, height: info.height };
}

async function prepareWatermark() {
  // once per run: scaled, faded, kept as raw RGBA
  const { data, info } = await sharp(watermarkPath).ensureAlpha().resize(WM_WIDTH)
    .linear([1, 1, 1, WM_OPACITY], [0, 0, 0, 0]).raw().toBuffer({ resolveWithObject: true });
  return { input: data, raw: { width: info.width, height: info.height, channels: 4 },
    width: info.width, height: info.height };
}

async function photo(file, mark, band) {
  const out = path.join(outdir, path.basename(file, path.extname(file)) + '.jpg');
  const image = sharp(file).rotate().resize(W, H, { fit: 'cover', position: 'centre' });
  const layers = [];
  if (levels.has('caption')) {
    const caption = imageDescription((await sharp(file).metadata()).exif);
    layers.push({ input: band, raw: { width: W, height: BAND_H, channels: 4 }, left: 0, top: H - BAND_H });
    if (caption) {
      const t = await textLayer(caption, CAPTION_FONT, W - 2 * CAPTION_PAD, 'left', 'white');
      layers.push({ input: t.input, raw: t.raw, left: CAPTION_PAD,
        top: H - BAND_H + Math.floor((BAND_H - t.height) / 2) });
    }
  }
  if (mark) {
    const bottom = levels.has('caption') ? BAND_H : 0;
    layers.push({ input: mark.input, raw: mark.raw, left: W - WM_MARGIN - mark.width,
      top: H - bottom - WM_MARGIN - mark.height });
  }
  if (layers.length) image.composite(layers);
  // sharp drops metadata unless asked to keep it
  await image.jpeg({ quality: 85, chromaSubsampling: '4:2:0', optimiseCoding: true }).toFile(out);
  return out;
}

// The sheet: thumbnails of the outputs, laid out like gallop's contact-sheet
// (cells of tile x tile, gap around, the file name under each, page footer).
async function sheet(outputs) {
  const { columns, tile, gap, label, footer } = SHEET;
  const rows = Math.ceil(outputs.length / columns);
  const width = gap + columns * (tile + gap);
  const height = gap + rows * (tile + label + gap) + footer;
  const layers = [];
  for (let i = 0; i < outputs.length; i++) {
    const x0 = gap + (i % columns) * (tile + gap), y0 = gap + Math.floor(i / columns) * (tile + label + gap);
    const { data, info } = await sharp(outputs[i]).resize(tile, tile, { fit: 'inside' })
      .raw().toBuffer({ resolveWithObject: true });
    layers.push({ input: data, raw: { width: info.width, height: info.height, channels: info.channels },
      left: x0 + Math.floor((tile - info.width) / 2), top: y0 + tile - info.height });
    const t = await textLayer(path.basename(files[i]), SHEET.labelFont, tile, 'centre', 'black');
    layers.push({ input: t.input, raw: t.raw, left: x0 + Math.floor((tile - t.width) / 2),
      top: y0 + tile + Math.floor((label - t.height) / 2) });
  }
  const f = await textLayer('1 / 1', 'DejaVu Sans 17', width - 2 * gap, 'centre', 'black');
  layers.push({ input: f.input, raw: f.raw, left: Math.floor((width - f.width) / 2),
    top: height - footer + Math.floor((footer - f.height) / 2) - gap / 2 });
  await sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
    .composite(layers).jpeg({ quality: 85, chromaSubsampling: '4:2:0', optimiseCoding: true })
    .toFile(path.join(outdir, 'contact-1.jpg'));
}

async function main() {
  const mark = levels.has('watermark') ? await prepareWatermark() : null;
  const band = Buffer.alloc(W * BAND_H * 4);
  for (let i = 3; i < band.length; i += 4) band[i] = 128;
  const outputs = new Array(files.length);
  let next = 0;
  async function worker() {
    while (next < files.length) {
      const i = next++;
      outputs[i] = await photo(files[i], mark, band);
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  if (levels.has('sheet')) await sheet(outputs);
}

main().catch((err) => { console.error(err); process.exit(1); });
