/**
 * Decoding the images of ROS map_server maps into rasters (core/map/occupancy.ts RasterImage):
 * Netpbm PGM (P2 plain, P5 binary; 8 or 16 bits) and PPM (P3, P6), PNG (pngjs: every colour type
 * and depth, rescaled to 8 bits; alpha kept), and uncompressed BMP (1, 4, 8 bits with a palette,
 * 24 bits, 32 bits with BI_RGB or bit fields; rows bottom-up or top-down) read here: the BMP
 * decoders on npm we looked at (bmp-js, bmp-ts) zero the alpha of every pixel and do not notice
 * truncated pixel data. Every problem is an ImageError saying what is wrong (the caller names the files).
 * Encoding P5 PGM (what `witness bench map` and the tests write) is here too.
 *
 * The size a header declares is checked before anything is allocated or inflated: at most
 * MAX_MAP_PIXELS pixels (for a PNG in colour or at 16 bits half that, in colour at 16 bits a quarter:
 * pngjs holds its image data at its depth, then every pixel as RGBA, about a gigabyte at the limit for
 * a colour image), pixel data the file can hold (PGM, BMP), and a PNG's compressed data inflating to
 * exactly what its header declares (admitPng).
 */
import { inflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import type { RasterImage } from '../../core/map/occupancy.js';

export class ImageError extends Error {
  override name = 'ImageError';
}

/** The most pixels a map image may have: 8192 × 8192 (410 m square at 5 cm). */
export const MAX_MAP_PIXELS = 8192 * 8192;
const LIMIT = `the limit for a map image: ${MAX_MAP_PIXELS} pixels; for a PNG in colour or at 16 bits half that, in colour at 16 bits a quarter`;

/**
 * Refuses a size over the pixel limit before anything is allocated; a PNG counts each pixel twice in colour and twice
 * at 16 bits (`png`).
 */
function admitPixels(kind: string, width: number, height: number, png?: { colour: boolean; deep: boolean }): void {
  const weight = (png?.colour === true ? 2 : 1) * (png?.deep === true ? 2 : 1);
  if (width * height * weight > MAX_MAP_PIXELS) {
    const how = [...(png?.colour === true ? ['in colour'] : []), ...(png?.deep === true ? ['at 16 bits'] : [])];
    throw new ImageError(
      `${kind}: ${width}×${height} is ${width * height} pixels${how.length > 0 ? ` ${how.join(' ')}` : ''}, over ${MAX_MAP_PIXELS / weight} (${LIMIT})`,
    );
  }
}

export type ImageFormat = 'pgm' | 'png' | 'bmp';

/** The format by the file's first bytes, or null. */
export function imageFormat(bytes: Uint8Array): ImageFormat | null {
  if (bytes.length >= 2 && bytes[0] === 0x50 && [0x32, 0x33, 0x35, 0x36].includes(bytes[1]!)) return 'pgm';
  if (bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47)
    return 'png';
  if (bytes.length >= 2 && bytes[0] === 0x42 && bytes[1] === 0x4d) return 'bmp';
  return null;
}

export function decodeImage(bytes: Uint8Array): RasterImage {
  switch (imageFormat(bytes)) {
    case 'pgm':
      return decodePnm(bytes);
    case 'png':
      return decodePng(bytes);
    case 'bmp':
      return decodeBmp(bytes);
    default:
      throw new ImageError('not a PGM, PNG or BMP image (unknown signature)');
  }
}

/** Digits a header number may have (4294967295 has ten). */
const MAX_DIGITS = 10;

const isSpace = (b: number): boolean =>
  b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d || b === 0x0b || b === 0x0c;

/** Netpbm P2/P5 (gray) and P3/P6 (RGB). */
function decodePnm(bytes: Uint8Array): RasterImage {
  const kind = String.fromCharCode(bytes[0]!, bytes[1]!);
  const channels = kind === 'P3' || kind === 'P6' ? 3 : 1;
  let pos = 2;
  /** The next decimal integer of the header (comments from # to the end of the line are skipped). */
  const token = (what: string): number => {
    for (;;) {
      while (pos < bytes.length && isSpace(bytes[pos]!)) pos++;
      if (bytes[pos] !== 0x23) break;
      while (pos < bytes.length && bytes[pos] !== 0x0a && bytes[pos] !== 0x0d) pos++;
    }
    const begin = pos;
    while (pos < bytes.length && bytes[pos]! >= 0x30 && bytes[pos]! <= 0x39 && pos - begin <= MAX_DIGITS) pos++;
    if (pos === begin)
      throw new ImageError(
        pos >= bytes.length ? `${kind} ends before its ${what}` : `${kind}: ${what} is not a number (byte ${begin})`,
      );
    if (pos - begin > MAX_DIGITS)
      throw new ImageError(`${kind}: ${what} has more than ${MAX_DIGITS} digits (byte ${begin})`);
    return Number(String.fromCharCode(...bytes.subarray(begin, pos)));
  };
  const width = token('width'),
    height = token('height'),
    maxval = token('maxval');
  if (width < 1 || height < 1) throw new ImageError(`${kind}: size ${width}×${height} is empty`);
  if (maxval < 1 || maxval > 65535) throw new ImageError(`${kind}: maxval must be in 1..65535, got ${maxval}`);
  admitPixels(kind, width, height);
  const n = width * height * channels;
  const rgb = channels === 3 ? ' RGB' : '';
  if (kind === 'P5' || kind === 'P6') {
    if (pos >= bytes.length || !isSpace(bytes[pos]!)) throw new ImageError(`${kind}: no whitespace after the header`);
    pos++;
    const bps = maxval > 255 ? 2 : 1;
    const have = bytes.length - pos,
      need = n * bps;
    if (have !== need)
      throw new ImageError(
        `${kind}: the header says ${width}×${height}${rgb} at ${bps} byte(s) a sample, ${need} bytes of data; the file has ${have}${have < need ? ' (truncated)' : ''}`,
      );
  } else if (n > (bytes.length - pos + 1) / 2) {
    // Each sample takes a digit and a space at least.
    throw new ImageError(
      `${kind}: the header says ${width}×${height}${rgb}, ${n} samples; the file has ${bytes.length - pos} bytes left for them (truncated)`,
    );
  }
  const data = maxval > 255 ? new Uint16Array(n) : new Uint8Array(n);
  if (kind === 'P5' || kind === 'P6') {
    const bps = maxval > 255 ? 2 : 1;
    for (let i = 0; i < n; i++) {
      const s = bps === 2 ? (bytes[pos + 2 * i]! << 8) | bytes[pos + 2 * i + 1]! : bytes[pos + i]!;
      if (s > maxval) throw new ImageError(`${kind}: sample ${i} is ${s}, above maxval ${maxval}`);
      data[i] = s;
    }
  } else {
    for (let i = 0; i < n; i++) {
      let s: number;
      try {
        s = token(`sample ${i}`);
      } catch (e) {
        if (pos >= bytes.length)
          throw new ImageError(
            `${kind}: the header says ${width}×${height}${channels === 3 ? ' RGB' : ''}, ${n} samples; the file has ${i} (truncated)`,
          );
        throw e;
      }
      if (s > maxval) throw new ImageError(`${kind}: sample ${i} is ${s}, above maxval ${maxval}`);
      data[i] = s;
    }
    while (pos < bytes.length && isSpace(bytes[pos]!)) pos++;
    if (pos < bytes.length)
      throw new ImageError(`${kind}: more data than the header's ${width}×${height} (byte ${pos})`);
  }
  return { width, height, channels, maxval, data };
}

/** Samples a pixel has in each PNG colour type (grey, RGB, palette, grey + alpha, RGBA). */
const PNG_CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Adam7's passes: first column and row, column and row steps. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The bytes a PNG's image data inflates to: each row (of each pass, interlaced) its filter byte and its samples. */
function pngDataBytes(width: number, height: number, bitsPerPixel: number, interlaced: boolean): number {
  const rows = (w: number, h: number): number => (w === 0 || h === 0 ? 0 : h * (1 + Math.ceil((w * bitsPerPixel) / 8)));
  if (!interlaced) return rows(width, height);
  return ADAM7.reduce(
    (n, [x, y, dx, dy]) =>
      n + rows(Math.max(0, Math.ceil((width - x) / dx)), Math.max(0, Math.ceil((height - y) / dy))),
    0,
  );
}

/**
 * A PNG's header (IHDR, the first chunk) checked before pngjs allocates for it: its size against
 * the pixel limit, then its compressed data inflated once here with the most its header allows,
 * which it must fill exactly (pngjs inflates an interlaced image without a bound, stops a plain one
 * at its size with a message of its own, and pads one that is short with whatever memory held).
 */
function admitPng(bytes: Uint8Array): void {
  if (bytes.length < 33 || String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return; // pngjs says what is wrong
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = dv.getUint32(16),
    height = dv.getUint32(20),
    depth = bytes[24]!,
    colour = bytes[25]!,
    interlaced = bytes[28] === 1;
  if (width < 1 || height < 1) throw new ImageError(`PNG: size ${width}×${height} is empty`);
  const channels = PNG_CHANNELS[colour];
  admitPixels('PNG', width, height, { colour: (channels ?? 1) >= 3, deep: depth === 16 });
  if (channels === undefined || bytes[28]! > 1) return; // pngjs says what is wrong
  const most = pngDataBytes(width, height, channels * depth, interlaced);
  const what = `its ${interlaced ? 'interlaced ' : ''}image data`,
    header = `its ${width}×${height} header`;
  const idat: Uint8Array[] = [];
  for (let at = 8; at + 12 <= bytes.length;) {
    const len = dv.getUint32(at),
      type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (type === 'IDAT') idat.push(bytes.subarray(at + 8, Math.min(bytes.length, at + 8 + len)));
    if (type === 'IEND') break;
    at += 12 + len;
  }
  let inflated: number;
  try {
    inflated = inflateSync(Buffer.concat(idat), { maxOutputLength: Math.max(1, most) }).length;
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new ImageError(`PNG: ${what} inflates past the ${most} bytes ${header} allows`);
    return; // other damage: pngjs says what it is
  }
  if (inflated < most)
    throw new ImageError(`PNG: ${what} inflates to ${inflated} bytes, short of the ${most} ${header} declares`);
}

function decodePng(bytes: Uint8Array): RasterImage {
  admitPng(bytes);
  let png: ReturnType<typeof PNG.sync.read>;
  try {
    png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (e) {
    throw new ImageError(`PNG: ${e instanceof Error ? e.message : String(e)}`);
  }
  const { width, height } = png;
  const data = new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength);
  if (data.length !== width * height * 4)
    throw new ImageError(`PNG: ${width}×${height} but ${data.length} bytes of pixels`);
  let alpha = png.alpha;
  // a palette or gray image with a tRNS chunk has transparency too
  for (let i = 3; !alpha && i < data.length; i += 4) if (data[i] !== 255) alpha = true;
  if (alpha) return { width, height, channels: 4, maxval: 255, data };
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0, j = 0; i < data.length; i += 4, j += 3) {
    rgb[j] = data[i]!;
    rgb[j + 1] = data[i + 1]!;
    rgb[j + 2] = data[i + 2]!;
  }
  return { width, height, channels: 3, maxval: 255, data: rgb };
}

/**
 * Uncompressed BMP: 1/4/8-bit palette, 24-bit, 32-bit (BI_RGB: the fourth byte is unused; BI_BITFIELDS: masks, alpha
 * when one is given).
 */
function decodeBmp(bytes: Uint8Array): RasterImage {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 26) throw new ImageError(`BMP: ${bytes.length} bytes, shorter than its headers (truncated)`);
  const offset = dv.getUint32(10, true),
    dib = dv.getUint32(14, true);
  if (![12, 40, 52, 56, 108, 124].includes(dib)) throw new ImageError(`BMP: unknown info header size ${dib}`);
  if (bytes.length < 14 + dib) throw new ImageError(`BMP: ${bytes.length} bytes, shorter than its headers (truncated)`);
  const core = dib === 12;
  const width = core ? dv.getUint16(18, true) : dv.getInt32(18, true);
  const rawH = core ? dv.getInt16(22, true) : dv.getInt32(22, true);
  const bpp = dv.getUint16(core ? 24 : 28, true);
  const compression = core ? 0 : dv.getUint32(30, true);
  const height = Math.abs(rawH),
    topDown = rawH < 0;
  if (width < 1 || height < 1) throw new ImageError(`BMP: size ${width}×${rawH} is empty`);
  admitPixels('BMP', width, height);
  const names: Record<number, string> = { 1: 'RLE8', 2: 'RLE4', 4: 'JPEG', 5: 'PNG', 6: 'BI_ALPHABITFIELDS' };
  const bitfields = compression === 3 || compression === 6;
  if (!(compression === 0 || (bitfields && bpp === 32))) {
    throw new ImageError(
      `BMP: compression ${names[compression] ?? compression}${bitfields ? ` with ${bpp} bits per pixel` : ''} is not supported; save it uncompressed with 8, 24 or 32 bits per pixel`,
    );
  }
  if (![1, 4, 8, 24, 32].includes(bpp))
    throw new ImageError(`BMP: ${bpp} bits per pixel is not supported; save it with 8, 24 or 32 bits per pixel`);
  let palette: Uint8Array | null = null;
  if (bpp <= 8) {
    const entry = core ? 3 : 4;
    const used = core ? 0 : dv.getUint32(46, true);
    const count = used === 0 ? 1 << bpp : used;
    const at = 14 + dib;
    if (count > 1 << bpp || at + count * entry > offset)
      throw new ImageError(`BMP: a palette of ${count} colours does not fit before the pixel data at byte ${offset}`);
    palette = new Uint8Array(count * 3);
    for (let i = 0; i < count; i++) {
      palette[3 * i] = bytes[at + i * entry + 2]!;
      palette[3 * i + 1] = bytes[at + i * entry + 1]!;
      palette[3 * i + 2] = bytes[at + i * entry]!;
    }
  }
  let masks: [number, number, number, number] | null = null;
  if (bpp === 32 && bitfields) {
    if (bytes.length < 54 + 12) throw new ImageError('BMP: the bit-field masks are missing (truncated)');
    masks = [
      dv.getUint32(54, true),
      dv.getUint32(58, true),
      dv.getUint32(62, true),
      dib >= 56 || compression === 6 ? dv.getUint32(66, true) : 0,
    ];
  }
  const stride = Math.floor((bpp * width + 31) / 32) * 4;
  if (offset + stride * height > bytes.length) {
    throw new ImageError(
      `BMP: ${width}×${height} at ${bpp} bits per pixel needs ${stride * height} bytes of pixels from byte ${offset}; the file has ${Math.max(0, bytes.length - offset)} (truncated)`,
    );
  }
  const hasAlpha = masks !== null && masks[3] !== 0;
  const ch = hasAlpha ? 4 : 3;
  const data = new Uint8Array(width * height * ch);
  const field = (px: number, mask: number): number => {
    if (mask === 0) return 0;
    let shift = 0;
    while (((mask >>> shift) & 1) === 0) shift++;
    const max = mask >>> shift;
    return Math.round(((((px & mask) >>> 0) >>> shift) * 255) / max);
  };
  for (let r = 0; r < height; r++) {
    const src = offset + (topDown ? r : height - 1 - r) * stride;
    for (let c = 0; c < width; c++) {
      const o = (r * width + c) * ch;
      if (palette !== null) {
        const bit = c * bpp;
        const idx = (bytes[src + (bit >> 3)]! >> (8 - bpp - (bit & 7))) & ((1 << bpp) - 1);
        if (3 * idx >= palette.length)
          throw new ImageError(
            `BMP: pixel (${c}, ${r}) uses colour ${idx}, beyond the palette's ${palette.length / 3}`,
          );
        data[o] = palette[3 * idx]!;
        data[o + 1] = palette[3 * idx + 1]!;
        data[o + 2] = palette[3 * idx + 2]!;
      } else if (masks !== null) {
        const px = dv.getUint32(src + 4 * c, true);
        data[o] = field(px, masks[0]);
        data[o + 1] = field(px, masks[1]);
        data[o + 2] = field(px, masks[2]);
        if (hasAlpha) data[o + 3] = field(px, masks[3]);
      } else {
        const p = src + c * (bpp / 8);
        data[o] = bytes[p + 2]!;
        data[o + 1] = bytes[p + 1]!;
        data[o + 2] = bytes[p]!;
      }
    }
  }
  return { width, height, channels: ch, maxval: 255, data };
}

/** A binary (P5) PGM of 8-bit gray samples, row 0 at the top. */
export function encodePgm(width: number, height: number, gray: Uint8Array, comment?: string): Uint8Array {
  const header = new TextEncoder().encode(
    `P5\n${comment !== undefined ? `# ${comment.replace(/[\r\n]/g, ' ')}\n` : ''}${width} ${height}\n255\n`,
  );
  const out = new Uint8Array(header.length + gray.length);
  out.set(header);
  out.set(gray, header.length);
  return out;
}
