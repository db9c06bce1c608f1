/**
 * What lies under and over the graph's canvas and follows its pan and zoom: the world picture (an
 * <img> of the scene's SVG from a blob: URL, so its markup is never part of the page and nothing
 * in it runs), the scene's edges and the robot's driven trail (one 2-D canvas: thousands of
 * static lines as Cytoscape elements would be styled one by one and redrawn on every frame, which
 * makes a large scene much slower to show) and the robot marker (an element moved with a CSS
 * transform: a live position update redraws no canvas, which for a large graph is slow in software).
 */
import type { Frame } from './model.js';

export interface Viewport {
  pan: { x: number; y: number };
  zoom: number;
  width: number;
  height: number;
}

/** Points drawn at most; longer trails are thinned evenly (the last point always kept). */
const MAX_TRAIL_POINTS = 5000;

/** Where the picture's viewBox lies in the world; null when the markup is not an SVG. */
function pictureRect(
  svg: string,
  fallback: { minX: number; minY: number; maxX: number; maxY: number },
): { markup: string; x: number; y: number; w: number; h: number } | null {
  const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
  const root = doc.documentElement;
  if (root.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length > 0) return null;
  const vb = (root.getAttribute('viewBox') ?? '')
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  if (vb.length === 4 && vb.every(Number.isFinite) && vb[2]! > 0 && vb[3]! > 0) {
    return { markup: svg, x: vb[0]!, y: vb[1]!, w: vb[2]!, h: vb[3]! };
  }
  // No viewBox: stretch its own width × height over the bounds (give it a viewBox so it scales).
  const w = parseFloat(root.getAttribute('width') ?? ''),
    h = parseFloat(root.getAttribute('height') ?? '');
  if (w > 0 && h > 0) {
    root.setAttribute('viewBox', `0 0 ${w} ${h}`);
    root.setAttribute('preserveAspectRatio', 'none');
  }
  return {
    markup: new XMLSerializer().serializeToString(root),
    x: fallback.minX,
    y: fallback.minY,
    w: fallback.maxX - fallback.minX,
    h: fallback.maxY - fallback.minY,
  };
}

export class Overlays {
  private readonly img: HTMLImageElement;
  private readonly canvas: HTMLCanvasElement;
  /** The trail goes over the nodes (under them it reads as a dashed line through a dense graph). */
  private readonly trailCanvas: HTMLCanvasElement;
  private url: string | null = null;
  /** The picture's rectangle in model units (top-left at its world minY, flipped on screen). */
  private rect: { x: number; y: number; w: number; h: number } | null = null;
  private yDown = false;
  private trail: Float64Array = new Float64Array(0);
  /** Scene edges as [x1, y1, x2, y2, …] in model units, their width in model units. */
  private edges: Float64Array = new Float64Array(0);
  private edgeWidth = 1;
  private last: Viewport | null = null;
  private pending = 0;
  private readonly marker: HTMLElement;
  /** The robot in model coordinates, or null when hidden. */
  private robot: { x: number; y: number } | null = null;

  /** `under` lies beneath the graph's canvas, `over` above it (both let pointer events through). */
  constructor(under: HTMLElement, over: HTMLElement) {
    this.marker = document.createElement('div');
    this.marker.className = 'gv-robot';
    this.marker.hidden = true;
    this.marker.title = 'robot';
    this.trailCanvas = document.createElement('canvas');
    this.trailCanvas.className = 'gv-lines';
    over.append(this.trailCanvas, this.marker);
    const host = under;
    this.img = document.createElement('img');
    this.img.className = 'gv-picture';
    this.img.alt = '';
    this.img.hidden = true;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'gv-lines';
    host.append(this.img, this.canvas);
  }

  /** Returns false when the markup is not an SVG (nothing is shown then). */
  setPicture(
    svg: string | null,
    frame: Frame | null,
    bounds: { minX: number; minY: number; maxX: number; maxY: number },
  ): boolean {
    if (this.url !== null) URL.revokeObjectURL(this.url);
    this.url = null;
    this.rect = null;
    this.img.hidden = true;
    this.img.removeAttribute('src');
    if (svg === null || frame === null) return true;
    const r = pictureRect(svg, bounds);
    if (r === null) return false;
    this.url = URL.createObjectURL(new Blob([r.markup], { type: 'image/svg+xml' }));
    this.rect = { x: r.x * frame.scale, y: r.y * frame.scale, w: r.w * frame.scale, h: r.h * frame.scale };
    this.yDown = frame.yDown;
    this.img.style.width = `${this.rect.w}px`;
    this.img.style.height = `${this.rect.h}px`;
    this.img.src = this.url;
    this.img.hidden = false;
    if (this.last) this.update(this.last);
    return true;
  }

  /** The trail in model coordinates, as [x0, y0, x1, y1, …]. */
  setTrail(model: Float64Array): void {
    const n = model.length / 2;
    if (n > MAX_TRAIL_POINTS) {
      const keep = new Float64Array(MAX_TRAIL_POINTS * 2);
      for (let k = 0; k < MAX_TRAIL_POINTS; k++) {
        const i = k === MAX_TRAIL_POINTS - 1 ? n - 1 : Math.floor((k * n) / MAX_TRAIL_POINTS);
        keep[2 * k] = model[2 * i]!;
        keep[2 * k + 1] = model[2 * i + 1]!;
      }
      model = keep;
    }
    this.trail = model;
    this.redraw();
  }

  /** The scene's edges, [x1, y1, x2, y2, …] in model units, drawn `width` model units wide. */
  setEdges(model: Float64Array, width: number): void {
    this.edges = model;
    this.edgeWidth = width;
    this.redraw();
  }

  /** Draws the canvas at the next frame (several viewport events in one frame draw once). */
  private redraw(): void {
    if (this.pending !== 0 || this.last === null) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = 0;
      if (this.last) this.draw(this.last);
    });
  }

  /** The robot marker at a model position, or hidden. */
  setRobot(model: { x: number; y: number } | null): void {
    this.robot = model;
    this.marker.hidden = model === null;
    if (this.last) this.placeMarker(this.last);
  }

  /** The marker's centre on the page, when shown. */
  robotPoint(): { x: number; y: number } | null {
    if (this.robot === null) return null;
    const b = this.marker.getBoundingClientRect();
    return { x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2 };
  }

  private placeMarker(v: Viewport): void {
    if (this.robot === null) return;
    this.marker.style.transform = `translate(${v.pan.x + v.zoom * this.robot.x}px, ${v.pan.y + v.zoom * this.robot.y}px)`;
  }

  update(v: Viewport): void {
    this.last = v;
    this.placeMarker(v);
    if (this.rect !== null) {
      // Model (x, y) → screen pan + zoom·(x, y); the picture's top edge is its world minY, which
      // is the bottom on screen (y up), hence the negative vertical scale.
      // With yDown the picture is placed as it is.
      const tx = v.pan.x + v.zoom * this.rect.x,
        ty = v.pan.y + (this.yDown ? 1 : -1) * v.zoom * this.rect.y;
      this.img.style.transform = `translate(${tx}px, ${ty}px) scale(${v.zoom}, ${this.yDown ? v.zoom : -v.zoom})`;
    }
    this.redraw();
  }

  private draw(v: Viewport): void {
    const { pan, zoom } = v;
    const ctx = this.clear(this.canvas, v);
    const e = this.edges;
    if (ctx !== null && e.length >= 4) {
      // One path, one stroke: the cost is the lines, not per-edge state changes.
      ctx.beginPath();
      for (let i = 0; i + 3 < e.length; i += 4) {
        ctx.moveTo(pan.x + zoom * e[i]!, pan.y + zoom * e[i + 1]!);
        ctx.lineTo(pan.x + zoom * e[i + 2]!, pan.y + zoom * e[i + 3]!);
      }
      ctx.strokeStyle = 'rgba(150, 160, 174, 0.7)';
      ctx.lineWidth = Math.max(0.5, zoom * this.edgeWidth);
      ctx.stroke();
    }
    const tctx = this.clear(this.trailCanvas, v);
    const t = this.trail;
    if (tctx !== null && t.length >= 4) {
      tctx.beginPath();
      tctx.moveTo(pan.x + zoom * t[0]!, pan.y + zoom * t[1]!);
      for (let i = 2; i < t.length; i += 2) tctx.lineTo(pan.x + zoom * t[i]!, pan.y + zoom * t[i + 1]!);
      tctx.strokeStyle = 'rgba(201, 42, 42, 0.8)';
      tctx.lineWidth = 2.5;
      tctx.lineJoin = 'round';
      tctx.stroke();
    }
  }

  /** A canvas sized to the viewport and cleared. */
  private clear(c: HTMLCanvasElement, v: Viewport): CanvasRenderingContext2D | null {
    const w = Math.max(1, Math.floor(v.width)),
      h = Math.max(1, Math.floor(v.height));
    if (c.width !== w || c.height !== h) {
      c.width = w;
      c.height = h;
    }
    const ctx = c.getContext('2d');
    ctx?.clearRect(0, 0, w, h);
    return ctx;
  }

  /** Screen rectangle of the picture, for tests and hit-checks. */
  pictureBox(): { left: number; right: number; top: number; bottom: number } | null {
    if (this.rect === null) return null;
    const b = this.img.getBoundingClientRect();
    return { left: b.left, right: b.right, top: b.top, bottom: b.bottom };
  }

  destroy(): void {
    if (this.pending !== 0) cancelAnimationFrame(this.pending);
    if (this.url !== null) URL.revokeObjectURL(this.url);
    this.img.remove();
    this.canvas.remove();
    this.trailCanvas.remove();
    this.marker.remove();
  }
}
