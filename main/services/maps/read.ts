/**
 * Reading a ROS map_server map: the YAML (image, resolution, origin, negate, occupied_thresh,
 * free_thresh, optional mode — the fields and rules of nav2_map_server's loadMapYaml) and its image
 * (a path relative to the YAML), classified into an occupancy grid. Every problem is a MapError
 * naming the file, the field and, in the YAML, the line:
 * `lab.yaml: occupied_thresh: must be in [0, 1], got 1.5 (line 5)`.
 */
import path from 'node:path';
import { type Document, LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { WitnessError } from '../../contract/errors.js';
import {
  MAP_MODES,
  type MapMode,
  type OccupancyGrid,
  type OccupancyParams,
  classify,
} from '../../core/map/occupancy.js';
import { errno } from '../../platform/files.js';
import { INPUT, InputRefused, readInputFile } from '../../platform/input-files.js';
import { ImageError, decodeImage, imageFormat } from './images.js';

export class MapError extends WitnessError {
  override name = 'MapError';
  constructor(
    readonly file: string,
    readonly field: string,
    readonly detail: string,
    line?: number,
    code: 'invalid-input' | 'not-found' | 'too-large' | 'not-a-file' = 'invalid-input',
  ) {
    super(code, `${file}: ${field}: ${detail}${line !== undefined ? ` (line ${line})` : ''}`, {
      file,
      path: field,
      ...(line !== undefined ? { line } : {}),
    });
  }
}

export interface MapFile {
  /** The map's name: the YAML's file name without its extension (what a regions file's `world` must say). */
  readonly name: string;
  readonly file: string;
  readonly image: string;
  readonly format: 'pgm' | 'png' | 'bmp';
  readonly params: OccupancyParams;
  readonly grid: OccupancyGrid;
  /** Wall-clock milliseconds spent reading and decoding the image, and classifying it. */
  readonly timing: { readonly read_ms: number; readonly decode_ms: number; readonly classify_ms: number };
}

export interface MapYaml {
  readonly image: string;
  readonly resolution: number;
  readonly origin: readonly [number, number, number];
  readonly params: OccupancyParams;
}

/** The map's name: its file name without the extension. */
const mapName = (file: string): string => path.basename(file).replace(/\.[^.]*$/, '');

/** Parses and checks the YAML text of a map. */
export function parseMapYaml(text: string, file: string): MapYaml {
  const lines = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first !== undefined) {
    const pos = lines.linePos(first.pos[0]);
    throw new MapError(
      file,
      `${pos.line}:${pos.col}`,
      `not valid YAML: ${first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`,
    );
  }
  if (!isMap(doc.contents))
    throw new MapError(
      file,
      '$',
      'must be a YAML mapping with image, resolution, origin, negate, occupied_thresh and free_thresh',
    );
  const root = doc.contents;
  const lineOf = (key: string): number | undefined => {
    const node = root.get(key, true) as { range?: [number, number, number] } | undefined;
    return node?.range ? lines.linePos(node.range[0]).line : undefined;
  };
  const fail = (key: string, detail: string): never => {
    throw new MapError(file, key, detail, lineOf(key));
  };
  const present = (key: string): unknown => {
    if (!root.has(key)) throw new MapError(file, key, 'missing (required by map_server)');
    return root.get(key, true);
  };
  const num = (key: string): number => {
    const node = present(key);
    const v = isScalar(node) ? node.value : undefined;
    if (typeof v !== 'number' || !Number.isFinite(v))
      fail(key, `must be a number, got ${isScalar(node) ? JSON.stringify(node.value) : 'a collection'}`);
    return v as number;
  };
  const imageNode = present('image');
  const image = isScalar(imageNode) ? imageNode.value : undefined;
  if (typeof image !== 'string' || image.trim() === '')
    fail('image', 'must be the image file name (a non-empty string)');
  const resolution = num('resolution');
  if (!(resolution > 0)) fail('resolution', `must be > 0 metres per cell, got ${resolution}`);
  const originNode = present('origin');
  if (!isSeq(originNode) || originNode.items.length !== 3) fail('origin', 'must be [x, y, yaw] (three numbers)');
  const origin = (originNode as { items: unknown[] }).items.map((it, i) => {
    const v = isScalar(it) ? it.value : undefined;
    if (typeof v !== 'number' || !Number.isFinite(v))
      fail('origin', `[${i}] must be a number, got ${isScalar(it) ? JSON.stringify(it.value) : 'a collection'}`);
    return v as number;
  }) as [number, number, number];
  if (origin[2] !== 0)
    fail(
      'origin',
      `a yaw of ${origin[2]} rad is not supported (map_server ignores it too in most of the stack); rotate the image instead and give yaw 0`,
    );
  const negateNode = present('negate');
  const nv = isScalar(negateNode) ? negateNode.value : undefined;
  if (!(nv === 0 || nv === 1 || nv === true || nv === false))
    fail('negate', `must be 0 or 1 (or true / false), got ${JSON.stringify(nv ?? 'a collection')}`);
  const occupiedThresh = num('occupied_thresh');
  if (!(occupiedThresh >= 0 && occupiedThresh <= 1))
    fail('occupied_thresh', `must be in [0, 1], got ${occupiedThresh}`);
  const freeThresh = num('free_thresh');
  if (!(freeThresh >= 0 && freeThresh <= 1)) fail('free_thresh', `must be in [0, 1], got ${freeThresh}`);
  if (!(freeThresh < occupiedThresh))
    fail('free_thresh', `must be below occupied_thresh (${occupiedThresh}), got ${freeThresh}`);
  let mode: MapMode = 'trinary';
  if (root.has('mode')) {
    const m = root.get('mode', true);
    const mv = isScalar(m) ? m.value : undefined;
    if (typeof mv !== 'string' || !(MAP_MODES as readonly string[]).includes(mv))
      fail('mode', `must be one of ${MAP_MODES.join(', ')}, got ${JSON.stringify(mv ?? 'a collection')}`);
    mode = mv as MapMode;
  }
  return {
    image: image as string,
    resolution,
    origin,
    params: { negate: nv === 1 || nv === true, occupiedThresh, freeThresh, mode },
  };
}

/** Reads a map YAML and its image; errors name the file and the field. */
export async function readMap(file: string): Promise<MapFile> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await readInputFile(file, INPUT.map));
  } catch (e) {
    if (e instanceof InputRefused) throw e;
    if (e instanceof TypeError) throw new MapError(file, '$', 'not UTF-8 text');
    const code = errno((e as { cause?: unknown }).cause);
    throw new MapError(
      file,
      '$',
      `cannot read: ${code ?? String(e)}`,
      undefined,
      code === 'ENOENT' ? 'not-found' : 'invalid-input',
    );
  }
  const y = parseMapYaml(text, file);
  const imageFile = path.resolve(path.dirname(file), y.image);
  const shown = path.isAbsolute(y.image) ? y.image : path.join(path.dirname(file), y.image);
  const imageLine = (): number | undefined => {
    const m = /^image\s*:/m.exec(text);
    return m ? text.slice(0, m.index).split('\n').length : undefined;
  };
  const t0 = performance.now();
  let bytes: Uint8Array;
  try {
    bytes = await readInputFile(imageFile, INPUT.mapImage);
  } catch (e) {
    if (e instanceof InputRefused)
      throw new MapError(
        file,
        'image',
        `${shown}: ${e.detail}`,
        imageLine(),
        e.code === 'too-large' ? 'too-large' : 'not-a-file',
      );
    const code = errno((e as { cause?: unknown }).cause);
    throw new MapError(
      file,
      'image',
      `cannot read ${shown}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : (code ?? String(e))}`,
      imageLine(),
      code === 'ENOENT' ? 'not-found' : 'invalid-input',
    );
  }
  const t1 = performance.now();
  const format = imageFormat(bytes);
  let img;
  try {
    img = decodeImage(bytes);
  } catch (e) {
    if (e instanceof ImageError) throw new MapError(file, 'image', `${shown}: ${e.message}`, imageLine());
    throw e;
  }
  const t2 = performance.now();
  const cells = classify(img, y.params);
  const t3 = performance.now();
  return {
    name: mapName(file),
    file,
    image: shown,
    format: format!,
    params: y.params,
    grid: {
      width: img.width,
      height: img.height,
      resolution: y.resolution,
      originX: y.origin[0],
      originY: y.origin[1],
      cells,
    },
    timing: { read_ms: t1 - t0, decode_ms: t2 - t1, classify_ms: t3 - t2 },
  };
}

/** The YAML text of a map as map_saver writes it. */
export function mapYamlText(o: {
  image: string;
  resolution: number;
  origin: readonly [number, number];
  negate?: boolean;
  occupiedThresh?: number;
  freeThresh?: number;
  mode?: MapMode;
}): string {
  return [
    `image: ${o.image}`,
    ...(o.mode !== undefined ? [`mode: ${o.mode}`] : []),
    `resolution: ${o.resolution}`,
    `origin: [${o.origin[0]}, ${o.origin[1]}, 0]`,
    `negate: ${o.negate === true ? 1 : 0}`,
    `occupied_thresh: ${o.occupiedThresh ?? 0.65}`,
    `free_thresh: ${o.freeThresh ?? 0.196}`,
    '',
  ].join('\n');
}
