#!/usr/bin/env node
// Generates the menu-bar icons in assets/tray/ (no dependencies: PNG bytes written with
// node:zlib). Run `node scripts/makeTrayIcons.mjs` after changing a glyph; the PNGs are
// committed, so neither the build nor the app runs this.
//
// One glyph per state, drawn as a terminal window (a 16-point canvas, rendered at 1x and 2x):
//   idle       outlined window with a `>_` prompt
//   running    outlined window with a `>` prompt and a filled badge (a command is running)
//   attention  filled window with a `!` knocked out (awaiting input, a secret prompt, a failure)
// The states differ by shape, not colour, because macOS template images are monochrome.
//   <state>Template.png, <state>Template@2x.png  macOS: black + alpha; the system tints them for
//                                                 light and dark menu bars (Electron picks
//                                                 template mode from the "Template" suffix)
//   <state>.png, <state>@2x.png                  Linux/Windows trays: coloured, for dark panels
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const OUT = fileURLToPath(new URL('../assets/tray/', import.meta.url));
const SIZE = 16; // points
const SUPERSAMPLE = 4;

// ---- geometry (coverage of a point in the 16x16 point space) ---------------------------------

const clamp01 = (v) => Math.max(0, Math.min(1, v));

/** Distance from p to the segment a–b. */
function segmentDistance(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = clamp01(((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Signed distance to a rounded rectangle (negative inside). */
function roundedRectDistance(px, py, x, y, w, h, r) {
  const cx = x + w / 2;
  const cy = y + h / 2;
  const qx = Math.abs(px - cx) - (w / 2 - r);
  const qy = Math.abs(py - cy) - (h / 2 - r);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

const WINDOW = { x: 1, y: 2.5, w: 14, h: 11, r: 2 };
const STROKE = 1.3;

const insideWindowOutline = (px, py) => Math.abs(roundedRectDistance(px, py, WINDOW.x, WINDOW.y, WINDOW.w, WINDOW.h, WINDOW.r)) <= STROKE / 2;
const insideWindowFill = (px, py) => roundedRectDistance(px, py, WINDOW.x, WINDOW.y, WINDOW.w, WINDOW.h, WINDOW.r) <= 0;
const chevron = (px, py) => segmentDistance(px, py, 4, 6, 6.5, 8.25) <= STROKE / 2 || segmentDistance(px, py, 6.5, 8.25, 4, 10.5) <= STROKE / 2;
const underscore = (px, py) => segmentDistance(px, py, 8, 10.5, 11.5, 10.5) <= STROKE / 2;
const badge = (px, py) => Math.hypot(px - 11.25, py - 8.25) <= 2.1;
const exclamation = (px, py) => segmentDistance(px, py, 8, 5.2, 8, 8.8) <= 0.9 || Math.hypot(px - 8, py - 11) <= 0.95;

const GLYPHS = {
  idle: (px, py) => insideWindowOutline(px, py) || chevron(px, py) || underscore(px, py),
  running: (px, py) => insideWindowOutline(px, py) || chevron(px, py) || badge(px, py),
  attention: (px, py) => insideWindowFill(px, py) && !exclamation(px, py),
};

/** Linux/Windows colours (RGB) per state: light grey, green, orange. */
const COLOURS = {
  idle: [0xdc, 0xdc, 0xdc],
  running: [0x3f, 0xb9, 0x50],
  attention: [0xf0, 0x88, 0x3e],
};

function render(glyph, scale, rgb) {
  const px = SIZE * scale;
  const pixels = Buffer.alloc(px * px * 4);
  for (let y = 0; y < px; y++) {
    for (let x = 0; x < px; x++) {
      let hits = 0;
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) {
          const ux = (x + (sx + 0.5) / SUPERSAMPLE) / scale;
          const uy = (y + (sy + 0.5) / SUPERSAMPLE) / scale;
          if (glyph(ux, uy)) hits++;
        }
      }
      const i = (y * px + x) * 4;
      pixels[i] = rgb[0];
      pixels[i + 1] = rgb[1];
      pixels[i + 2] = rgb[2];
      pixels[i + 3] = Math.round((255 * hits) / (SUPERSAMPLE * SUPERSAMPLE));
    }
  }
  return encodePng(px, px, pixels);
}

// ---- PNG encoding ---------------------------------------------------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buffer) {
  let crc = 0xffffffff;
  for (const byte of buffer) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** 8-bit RGBA, no interlace, filter 0 on every row. */
function encodePng(width, height, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---- output ---------------------------------------------------------------------------------

mkdirSync(OUT, { recursive: true });
for (const [state, glyph] of Object.entries(GLYPHS)) {
  for (const [scale, suffix] of [
    [1, ''],
    [2, '@2x'],
  ]) {
    writeFileSync(path.join(OUT, `${state}Template${suffix}.png`), render(glyph, scale, [0, 0, 0]));
    writeFileSync(path.join(OUT, `${state}${suffix}.png`), render(glyph, scale, COLOURS[state]));
  }
}
console.log(`tray icons written to ${path.relative(process.cwd(), OUT) || OUT}`);
