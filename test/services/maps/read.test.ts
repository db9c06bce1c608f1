import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { MapError, readMap } from '../../../main/services/maps/read.js';
import { decodeImage, encodePgm } from '../../../main/services/maps/images.js';
import { floorPlan } from '../../../main/core/map/synthetic.js';
import { classifyPixel } from '../../../main/core/map/occupancy.js';
import { createRng } from '../../../main/core/random/rng.js';
import { bmp1, pgmHeader, pngFile } from './hostile-images.js';

/** A small map_saver-like grey image: free 254, occupied 0, unknown 205, plus some in-between greys. */
function sample(w = 37, h = 23): Uint8Array {
  const rng = createRng(5);
  return Uint8Array.from({ length: w * h }, () => [254, 254, 254, 0, 205, 128, 230][rng.int(0, 6)]!);
}

const pgmP2 = (w: number, h: number, g: Uint8Array): string =>
  `P2\n# plain\n${w} ${h}\n255\n${Array.from({ length: h }, (_, r) => Array.from(g.subarray(r * w, (r + 1) * w)).join(' ')).join('\n')}\n`;

function png(w: number, h: number, g: Uint8Array, colorType: 0 | 2 | 4 | 6 = 0): Buffer {
  const p = new PNG({ width: w, height: h, colorType, inputColorType: 6, inputHasAlpha: true });
  for (let i = 0; i < w * h; i++) p.data.set([g[i]!, g[i]!, g[i]!, 255], 4 * i);
  return PNG.sync.write(p, { colorType, inputColorType: 6, inputHasAlpha: true });
}

/** An uncompressed BMP: 8-bit grey palette, 24-bit, or 32-bit bit fields with an alpha mask (opaque). */
export function bmp(w: number, h: number, g: Uint8Array, bpp: 8 | 24 | 32, topDown = false): Uint8Array {
  const stride = Math.floor((bpp * w + 31) / 32) * 4;
  const dib = bpp === 32 ? 108 : 40,
    palette = bpp === 8 ? 256 * 4 : 0;
  const offset = 14 + dib + palette,
    size = offset + stride * h;
  const b = new Uint8Array(size),
    dv = new DataView(b.buffer);
  b[0] = 0x42;
  b[1] = 0x4d;
  dv.setUint32(2, size, true);
  dv.setUint32(10, offset, true);
  dv.setUint32(14, dib, true);
  dv.setInt32(18, w, true);
  dv.setInt32(22, topDown ? -h : h, true);
  dv.setUint16(26, 1, true);
  dv.setUint16(28, bpp, true);
  dv.setUint32(30, bpp === 32 ? 3 : 0, true);
  dv.setUint32(34, stride * h, true);
  if (bpp === 32) {
    dv.setUint32(54, 0x00ff0000, true);
    dv.setUint32(58, 0x0000ff00, true);
    dv.setUint32(62, 0x000000ff, true);
    dv.setUint32(66, 0xff000000, true);
  }
  if (bpp === 8) for (let i = 0; i < 256; i++) b.set([i, i, i, 0], 14 + dib + 4 * i);
  for (let r = 0; r < h; r++) {
    const row = offset + (topDown ? r : h - 1 - r) * stride;
    for (let c = 0; c < w; c++) {
      const v = g[r * w + c]!;
      if (bpp === 8) b[row + c] = v;
      else if (bpp === 24) b.set([v, v, v], row + 3 * c);
      else b.set([v, v, v, 255], row + 4 * c);
    }
  }
  return b;
}

function mapDir(image: string, bytes: Uint8Array | string, yaml?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'witness-map-'));
  writeFileSync(join(dir, image), bytes);
  writeFileSync(
    join(dir, 'm.yaml'),
    yaml ??
      `image: ${image}\nresolution: 0.05\norigin: [-1.0, -2.0, 0.0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n`,
  );
  return join(dir, 'm.yaml');
}

test('P2, P5, PNG (grey, RGB, grey+alpha, RGBA) and BMP (8, 24, 32 bits; bottom-up and top-down) read the same map identically', async () => {
  const w = 37,
    h = 23,
    g = sample(w, h);
  const files: [string, Uint8Array | string][] = [
    ['a.pgm', pgmP2(w, h, g)],
    ['b.pgm', encodePgm(w, h, g, 'binary')],
    ['c.png', png(w, h, g, 0)],
    ['d.png', png(w, h, g, 2)],
    ['e.png', png(w, h, g, 4)],
    ['f.png', png(w, h, g, 6)],
    ['g.bmp', bmp(w, h, g, 8)],
    ['h.bmp', bmp(w, h, g, 24)],
    ['i.bmp', bmp(w, h, g, 32)],
    ['j.bmp', bmp(w, h, g, 24, true)],
  ];
  const ref = await readMap(mapDir(files[1]![0], files[1]![1]));
  assert.equal(ref.grid.width, w);
  assert.equal(ref.grid.height, h);
  assert.deepEqual([ref.grid.originX, ref.grid.originY, ref.grid.resolution], [-1, -2, 0.05]);
  assert.equal(ref.name, 'm');
  const counts = [0, 0, 0];
  for (const c of ref.grid.cells) counts[c]!++;
  assert.ok(
    counts.every((n) => n > 0),
    `free, occupied and unknown all present: ${counts.join(', ')}`,
  );
  for (const [name, bytes] of files) {
    const m = await readMap(mapDir(name, bytes));
    // the opaque alpha of e.png, f.png and i.bmp (an alpha mask) is averaged in (trinary, as map_server does): (3·205 +
    // 255) / 4 is free
    const alpha = name === 'e.png' || name === 'f.png' || name === 'i.bmp';
    const expect = alpha
      ? Uint8Array.from(g, (v) =>
          classifyPixel(v, 255, true, 255, { negate: false, occupiedThresh: 0.65, freeThresh: 0.196, mode: 'trinary' }),
        )
      : ref.grid.cells;
    if (alpha) assert.notDeepEqual(expect, ref.grid.cells);
    assert.deepEqual(m.grid.cells, expect, name);
  }
});

test('a 16-bit PGM and the synthetic floor round-trip', () => {
  const img = decodeImage(new Uint8Array([...new TextEncoder().encode('P5 2 1 65535\n'), 0xff, 0xff, 0, 0]));
  assert.equal(img.maxval, 65535);
  assert.deepEqual([...img.data], [65535, 0]);
  const f = floorPlan(createRng(2), { size: 10, resolution: 0.1, rooms: 2 });
  const back = decodeImage(encodePgm(100, 100, f.gray));
  assert.deepEqual(back.data, f.gray);
});

async function refused(yaml: string, image?: [string, Uint8Array | string]): Promise<MapError> {
  const file = mapDir(image?.[0] ?? 'x.pgm', image?.[1] ?? encodePgm(2, 2, new Uint8Array(4)), yaml);
  try {
    await readMap(file);
  } catch (e) {
    assert.ok(e instanceof MapError, String(e));
    return e;
  }
  assert.fail('accepted');
}

test('bad YAML fields are refused naming the field and its line', async () => {
  const base = {
    image: 'x.pgm',
    resolution: '0.05',
    origin: '[0, 0, 0]',
    negate: '0',
    occupied_thresh: '0.65',
    free_thresh: '0.196',
  };
  const text = (o: Record<string, string | undefined>): string =>
    Object.entries({ ...base, ...o })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n') + '\n';
  const cases: [Record<string, string | undefined>, string, RegExp][] = [
    [{ occupied_thresh: '1.5' }, 'occupied_thresh', /occupied_thresh: must be in \[0, 1\], got 1\.5 \(line 5\)/],
    [{ free_thresh: '-0.1' }, 'free_thresh', /must be in \[0, 1\], got -0\.1/],
    [{ free_thresh: '0.7' }, 'free_thresh', /must be below occupied_thresh \(0\.65\), got 0\.7/],
    [{ resolution: '0' }, 'resolution', /must be > 0/],
    [{ resolution: 'fine' }, 'resolution', /must be a number, got "fine"/],
    [{ origin: '[0, 0]' }, 'origin', /\[x, y, yaw\]/],
    [{ origin: '[0, 0, 0.5]' }, 'origin', /yaw of 0\.5 rad is not supported/],
    [{ negate: '2' }, 'negate', /must be 0 or 1/],
    [{ mode: 'fancy' }, 'mode', /one of trinary, scale, raw/],
    [{ image: undefined }, 'image', /missing/],
    [{ free_thresh: undefined }, 'free_thresh', /missing/],
  ];
  for (const [o, field, message] of cases) {
    const e = await refused(text(o));
    assert.equal(e.field, field, e.message);
    assert.match(e.message, message);
    assert.match(e.message, /m\.yaml: /);
  }
  const syntax = await refused('image: x.pgm\norigin: [0, 0,\n');
  assert.match(syntax.message, /m\.yaml: \d+:\d+: not valid YAML/);
});

test('images that are missing, unreadable or of another size than declared are refused naming both files', async () => {
  const yaml =
    'image: x.img\nresolution: 0.05\norigin: [0, 0, 0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n';
  const g = sample(10, 6);
  const p5 = encodePgm(10, 6, g),
    goodPng = png(10, 6, g),
    goodBmp = bmp(10, 6, g, 24);
  const cases: [Uint8Array | string, RegExp][] = [
    [
      p5.subarray(0, p5.length - 7),
      /x\.img: P5: the header says 10×6 .* 60 bytes of data; the file has 53 \(truncated\)/,
    ],
    [new Uint8Array([...p5, 1, 2]), /the file has 62/],
    [pgmP2(10, 6, g).replace(/ \d+\n$/, '\n'), /P2: the header says 10×6, 60 samples; the file has 59 \(truncated\)/],
    [pgmP2(10, 6, g) + '7\n', /P2: more data than the header's 10×6/],
    ['P2\n2 1\n255\n0 300\n', /sample 1 is 300, above maxval 255/],
    [goodPng.subarray(0, goodPng.length - 30), /x\.img: PNG: /],
    [goodBmp.subarray(0, goodBmp.length - 5), /x\.img: BMP: 10×6 at 24 bits per pixel needs .* \(truncated\)/],
    [
      (() => {
        const b = bmp(10, 6, g, 8);
        new DataView(b.buffer).setUint32(30, 1, true);
        return b;
      })(),
      /compression RLE8 is not supported/,
    ],
    ['GIF89a', /not a PGM, PNG or BMP image/],
  ];
  for (const [bytes, message] of cases) {
    const e = await refused(yaml, ['x.img', bytes]);
    assert.equal(e.field, 'image', e.message);
    assert.match(e.message, /^\S*m\.yaml: image: /);
    assert.match(e.message, message);
  }
  const missing = await refused(yaml.replace('x.img', 'nowhere.pgm'));
  assert.match(missing.message, /m\.yaml: image: cannot read .*nowhere\.pgm: no such file \(line 1\)/);
  assert.equal(missing.code, 'not-found');
});

test('an image whose header declares more pixels than the limit, or more data than the file holds, is refused before it is decoded, naming both files and the limit', async () => {
  const yaml =
    'image: x.img\nresolution: 0.05\norigin: [0, 0, 0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n';
  const LIMIT =
    /over 67108864 \(the limit for a map image: 67108864 pixels; for a PNG in colour or at 16 bits half that, in colour at 16 bits a quarter\)/;
  const cases: [Uint8Array, RegExp][] = [
    [pgmHeader(100_000, 100_000), /P5: 100000×100000 is 10000000000 pixels, over 67108864/],
    [pgmHeader(8193, 8192), LIMIT],
    [pgmHeader('9'.repeat(100_000), 1), /P5: width has more than 10 digits/],
    [
      new TextEncoder().encode('P2\n8000 8000\n255\n0 0 0\n'),
      /P2: the header says 8000×8000, 64000000 samples; the file has 7 bytes left for them \(truncated\)/,
    ],
    [pngFile({ width: 100_000, height: 100_000 }), /PNG: 100000×100000 is 10000000000 pixels, over 67108864/],
    [pngFile({ width: 6000, height: 6000, depth: 16 }), /PNG: 6000×6000 is 36000000 pixels at 16 bits, over 33554432/],
    // In colour pngjs holds about a gigabyte at 8192×8192: RGB and RGBA count each pixel twice.
    [pngFile({ width: 8192, height: 8192, colour: 2 }), /PNG: 8192×8192 is 67108864 pixels in colour, over 33554432/],
    [
      pngFile({ width: 4096, height: 8193, colour: 6, depth: 16 }),
      /PNG: 4096×8193 is 33558528 pixels in colour at 16 bits, over 16777216/,
    ],
    // Interlaced: pngjs would inflate the data whole, however far past the header it goes.
    [
      pngFile({ width: 1, height: 1, interlaced: true }, new Uint8Array(64 * 1024 * 1024)),
      /PNG: its interlaced image data inflates past the 2 bytes its 1×1 header allows/,
    ],
    [bmp1(8193, 8192), /BMP: 8193×8192 is 67117056 pixels, over 67108864/],
    // Plain: 64 MiB of image data for a 100×100 header (pngjs stopped at the header's size with words of its own)…
    [
      pngFile({ width: 100, height: 100 }, new Uint8Array(64 * 1024 * 1024)),
      /PNG: its image data inflates past the 10100 bytes its 100×100 header allows/,
    ],
    // …or a byte short of it (pngjs padded the last row with whatever memory held).
    [
      pngFile({ width: 100, height: 100 }, new Uint8Array(10_099)),
      /PNG: its image data inflates to 10099 bytes, short of the 10100 its 100×100 header declares/,
    ],
  ];
  for (const [bytes, message] of cases) {
    const t0 = performance.now();
    const e = await refused(yaml, ['x.img', bytes]);
    assert.equal(e.field, 'image', e.message);
    assert.match(e.message, /^\S*m\.yaml: image: \S*x\.img: /);
    assert.match(e.message, message);
    assert.ok(performance.now() - t0 < 5000, `${message.source}: ${(performance.now() - t0).toFixed(0)} ms`);
  }
  assert.ok(process.resourceUsage().maxRSS / 1024 < 1024, 'bounded memory');
  // Within the limits, an interlaced PNG (Adam7: seven passes, each row a filter byte and its pixels) reads as its
  // plain twin does.
  const w = 9,
    h = 5,
    g = sample(w, h);
  const rows = Uint8Array.from({ length: h * (w + 1) }, (_, i) =>
    i % (w + 1) === 0 ? 0 : g[Math.floor(i / (w + 1)) * w + (i % (w + 1)) - 1]!,
  );
  const passes: number[] = [];
  for (const [x0, y0, dx, dy] of [
    [0, 0, 8, 8],
    [4, 0, 8, 8],
    [0, 4, 4, 8],
    [2, 0, 4, 4],
    [0, 2, 2, 4],
    [1, 0, 2, 2],
    [0, 1, 1, 2],
  ] as const) {
    for (let y = y0; y < h; y += dy) {
      const row: number[] = [];
      for (let x = x0; x < w; x += dx) row.push(g[y * w + x]!);
      if (row.length > 0) passes.push(0, ...row);
    }
  }
  const plain = decodeImage(pngFile({ width: w, height: h }, rows));
  assert.deepEqual(
    [...plain.data].filter((_, i) => i % 3 === 0),
    [...g],
  );
  assert.deepEqual(decodeImage(pngFile({ width: w, height: h, interlaced: true }, Uint8Array.from(passes))), plain);
});
