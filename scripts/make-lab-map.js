#!/usr/bin/env node
// Writes assets/maps/lab.pgm and assets/maps/lab.yaml: a small lab floor as a ROS map_server map
// (what slam_toolbox's map_saver writes: P5 PGM, 254 free, 0 occupied, 205 unknown, 5 cm cells).
// Deterministic: rerunning it gives the same bytes. Layout, map frame, metres (x right, y up):
//   outer walls   x −1 … 11, y −1 … 7 (12 m × 8 m), 15 cm thick; outside them unknown, as SLAM leaves it
//   hall          x −1 … 6: the robot's dock on the west wall near (0, 0), where mapping started;
//                 a pillar at (3, 3); a closed closet in the north-west corner (x −1 … 1, y 5.5 … 7),
//                 never seen inside (unknown)
//   workshop      x 6 … 11, y 3 … 7: door in its west wall at y 4.5 … 5.4; a bench along y 5.2 … 5.8
//   storage       x 6 … 11, y −1 … 3: door in its west wall at y 0.5 … 1.4; shelves along y 1.8 … 2.2
// The regions of assets/maps/lab-regions.json (dock, bench, shelf, spill) sit in front of these.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'assets', 'maps');
const res = 0.05,
  ox = -2,
  oy = -2,
  W = 280,
  H = 200; // 14 m × 10 m: 1 m of unknown around the walls
const FREE = 254,
  OCC = 0,
  UNKNOWN = 205;
const img = new Uint8Array(W * H).fill(UNKNOWN);

/** Fills every cell whose centre lies in [x0, x1] × [y0, y1]. */
function rect(x0, y0, x1, y1, v) {
  for (let row = 0; row < H; row++) {
    const y = oy + (H - row - 0.5) * res;
    if (y < y0 || y > y1) continue;
    for (let col = 0; col < W; col++) {
      const x = ox + (col + 0.5) * res;
      if (x >= x0 && x <= x1) img[row * W + col] = v;
    }
  }
}
const t = 0.075; // half a wall's thickness
const wallH = (y, x0, x1) => rect(x0 - t, y - t, x1 + t, y + t, OCC);
const wallV = (x, y0, y1) => rect(x - t, y0 - t, x + t, y1 + t, OCC);

rect(-1, -1, 11, 7, FREE); // the floor inside the outer walls
wallH(-1, -1, 11);
wallH(7, -1, 11);
wallV(-1, -1, 7);
wallV(11, -1, 7); // outer walls
wallV(6, -1, 4.5);
wallV(6, 5.4, 7); // hall | workshop, with its door
rect(6 - t - 0.01, 0.5, 6 + t + 0.01, 1.4, FREE); // hall | storage door
wallH(3, 6, 11); // workshop | storage
rect(-1, 5.5, 1, 7, UNKNOWN);
wallH(5.5, -1, 1);
wallV(1, 5.5, 7); // the closed closet
rect(2.8, 2.8, 3.2, 3.2, OCC); // pillar
rect(7.5, 5.2, 10.5, 5.8, OCC); // workshop bench
rect(7.5, 1.8, 10.5, 2.2, OCC); // storage shelves
rect(-1, -0.3, -0.8, 0.3, OCC); // the dock on the west wall

const header = Buffer.from(`P5\n# lab floor, witness scripts/make-lab-map.js\n${W} ${H}\n255\n`);
writeFileSync(path.join(out, 'lab.pgm'), Buffer.concat([header, Buffer.from(img)]));
writeFileSync(
  path.join(out, 'lab.yaml'),
  [
    'image: lab.pgm',
    'mode: trinary',
    `resolution: ${res}`,
    `origin: [${ox.toFixed(1)}, ${oy.toFixed(1)}, 0.0]`,
    'negate: 0',
    'occupied_thresh: 0.65',
    'free_thresh: 0.196', // ROS 1 map_saver's: 205 (unknown) has occ 0.196078, not below it; 0.25 would read unknown as free
    '',
  ].join('\n'),
);
console.log(`wrote ${path.join(out, 'lab.pgm')} (${W}×${H}) and lab.yaml`);
