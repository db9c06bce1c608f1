/**
 * Map images whose headers declare what their data does not hold: PNG files built chunk by chunk
 * (with correct CRCs, so that a decoder reaches the header's sizes), PGM headers, and 1-bit BMP
 * files, whose pixel data is an eighth of a byte a pixel. Used by the reader tests, the CLI tests
 * and the fuzz targets.
 */
import { crc32, deflateSync } from 'node:zlib';

const chunk = (type: string, data: Uint8Array): Uint8Array => {
  const out = new Uint8Array(12 + data.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  dv.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
};

export interface PngHeader {
  readonly width: number;
  readonly height: number;
  readonly depth?: number;
  /** 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA. */
  readonly colour?: number;
  readonly interlaced?: boolean;
}

/**
 * A PNG of this header whose image data is `raw` deflated (by default one row's worth of zeros: far less than the
 * header says).
 */
export function pngFile(h: PngHeader, raw: Uint8Array = new Uint8Array(16)): Uint8Array {
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, h.width);
  dv.setUint32(4, h.height);
  ihdr.set([h.depth ?? 8, h.colour ?? 0, 0, 0, h.interlaced === true ? 1 : 0], 8);
  const parts = [
    Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A binary PGM header (and `data`, by default none). */
export const pgmHeader = (
  width: number | string,
  height: number | string,
  maxval = 255,
  data: Uint8Array = new Uint8Array(0),
): Uint8Array => Uint8Array.from([...new TextEncoder().encode(`P5\n${width} ${height}\n${maxval}\n`), ...data]);

/** A 1-bit BMP (a two-colour palette) of width × height, its pixel data all there, all zero. */
export function bmp1(width: number, height: number): Uint8Array {
  const stride = Math.floor((width + 31) / 32) * 4,
    offset = 14 + 40 + 8;
  const b = new Uint8Array(offset + stride * height);
  const dv = new DataView(b.buffer);
  b[0] = 0x42;
  b[1] = 0x4d;
  dv.setUint32(2, b.length, true);
  dv.setUint32(10, offset, true);
  dv.setUint32(14, 40, true);
  dv.setInt32(18, width, true);
  dv.setInt32(22, height, true);
  dv.setUint16(26, 1, true);
  dv.setUint16(28, 1, true);
  dv.setUint32(46, 2, true);
  b.set([0, 0, 0, 0, 255, 255, 255, 0], 54);
  return b;
}
