/**
 * PNG bytes from RGBA pixels: 8-bit RGB, no filter, zlib at level 1. A terminal's picture is
 * large flat areas and few colours, which the fastest deflate already packs small; the
 * rasteriser's own encoder spends most of a screenshot's time on a higher level.
 */
import * as zlib from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
  return out;
}

/** `rgba`: width × height pixels, 4 bytes each (alpha is dropped: the picture is opaque). */
export function encodePng(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): Buffer {
  const stride = width * 3 + 1;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    let out = y * stride + 1; // filter byte 0: none
    let p = y * width * 4;
    for (let x = 0; x < width; x++, p += 4) {
      raw[out++] = rgba[p]!;
      raw[out++] = rgba[p + 1]!;
      raw[out++] = rgba[p + 2]!;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // colour type: RGB
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}
