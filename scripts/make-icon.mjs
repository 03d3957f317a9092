// Draws media/icon.png (128×128): a small coolwarm heatmap, the product in one glance.
// Run once by hand (`node scripts/make-icon.mjs`); the PNG is committed.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const S = 128;
const px = Buffer.alloc(S * S * 4);
const lerp = (a, b, t) => a + (b - a) * t;
// coolwarm endpoints and center (Moreland)
const cool = [59, 76, 192], mid = [221, 221, 221], warm = [180, 4, 38];
const color = (v) => { // v in [-1, 1]
  const [a, b, t] = v < 0 ? [mid, cool, -v] : [mid, warm, v];
  return a.map((x, i) => Math.round(lerp(x, b[i], t)));
};
const bg = [30, 30, 36];
const n = 6, pad = 10, gap = 3, cell = (S - 2 * pad - (n - 1) * gap) / n;
for (let y = 0; y < S; y++) for (let x = 0; x < S; x++) {
  const o = (y * S + x) * 4;
  // rounded square background
  const r = 22, cx = Math.min(Math.max(x, r), S - 1 - r), cy = Math.min(Math.max(y, r), S - 1 - r);
  const inside = (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
  let c = bg;
  const i = Math.floor((y - pad) / (cell + gap)), j = Math.floor((x - pad) / (cell + gap));
  const inCell = i >= 0 && j >= 0 && i < n && j < n && (y - pad) - i * (cell + gap) < cell && (x - pad) - j * (cell + gap) < cell;
  if (inCell) {
    // a diagonal band with a hot spot: attention-like, with one strong neuron column
    const v = j === 4 ? 0.95 - 0.1 * i : Math.tanh(1.6 * Math.cos((i - j) * 0.9)) * (i === j ? 1 : 0.7) - (j > i + 1 ? 0.5 : 0);
    c = color(Math.max(-1, Math.min(1, v)));
  }
  px[o] = c[0]; px[o + 1] = c[1]; px[o + 2] = c[2]; px[o + 3] = inside ? 255 : 0;
}
const raw = Buffer.alloc(S * (S * 4 + 1));
for (let y = 0; y < S; y++) { raw[y * (S * 4 + 1)] = 0; px.copy(raw, y * (S * 4 + 1) + 1, y * S * 4, (y + 1) * S * 4); }
const crcTable = Array.from({ length: 256 }, (_, k) => { let c = k; for (let i = 0; i < 8; i++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
const crc = (buf) => { let c = 0xffffffff; for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
const chunk = (type, data) => { const len = Buffer.alloc(4); len.writeUInt32BE(data.length); const td = Buffer.concat([Buffer.from(type), data]); const c = Buffer.alloc(4); c.writeUInt32BE(crc(td)); return Buffer.concat([len, td, c]); };
const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(S, 0); ihdr.writeUInt32BE(S, 4); ihdr[8] = 8; ihdr[9] = 6;
writeFileSync('media/icon.png', Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]));
console.log('wrote media/icon.png');
