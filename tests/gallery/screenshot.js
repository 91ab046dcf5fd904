#!/usr/bin/env node
// screenshot.js PAGE.html OUT.png [WIDTH] [HEIGHT] [lightbox]: a gallery page
// in Debian's chromium, every lazy image loaded first; with `lightbox`, the
// second photo open in the lightbox. Makes docs/gallery*.png for the README:
//   NODE_PATH=tests/gallery/node_modules node tests/gallery/screenshot.js \
//     out/demo/index.html docs/gallery.png 1440 900
'use strict';
const path = require('path');
const puppeteer = require('puppeteer-core');

const [page_, out, w = '1440', h = '900', mode] = process.argv.slice(2);
if (!page_ || !out) {
  console.error('usage: screenshot.js PAGE.html OUT.png [WIDTH] [HEIGHT] [lightbox]');
  process.exit(2);
}
(async () => {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--font-render-hinting=none'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: +w, height: +h });
  await page.goto('file://' + path.resolve(page_), { waitUntil: 'load' });
  await page.evaluate(async () => {
    for (const img of document.querySelectorAll('img')) img.loading = 'eager';
    await Promise.all([...document.images].map((i) => i.decode().catch(() => {})));
  });
  if (mode === 'lightbox') {
    await page.click('.grid li:nth-child(2) a');
    await page.waitForFunction(() => {
      const i = document.querySelector('#lb .stage img');
      return i.complete && i.naturalWidth > 0;
    });
  }
  await new Promise((r) => setTimeout(r, 500));
  await page.screenshot({ path: out });
  await browser.close();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
