#!/usr/bin/env node
// The README's bench table from bench/results.json: `node bench/table.mjs` rewrites the table
// between <!-- bench:start --> and the first blank line after it (the prose below stays).
import { readFileSync, writeFileSync } from 'node:fs';

const r = JSON.parse(readFileSync('bench/results.json', 'utf8'));
const kind = (t) => (t.target === 'information' ? 'information' : t.unit === '×' ? 'ratio' : 'absolute');
const num = (v) => (typeof v === 'number' ? String(Math.round(v * 100) / 100) : '—');
const cell = (s) => String(s ?? '').replace(/\|/g, '\\|');
const rows = r.targets.map((t) => {
  const v = t.value ?? {};
  const unit = t.unit === '×' ? ' ×' : ` ${t.unit}`;
  const met = t.pass === null ? '—' : t.pass ? 'yes' : '**no**';
  return `| ${cell(t.what)} | ${kind(t)} | ${t.target === 'information' ? '—' : cell(t.target)} | ${num(v.median)}${unit} | ${num(v.min)} | ${num(v.max)} | ${met} | ${cell(t.note)} |`;
});
const table = ['| what | kind | target | median | min | max | met | same run |', '|---|---|---|---|---|---|---|---|', ...rows].join('\n');
const text = readFileSync('README.md', 'utf8');
const start = text.indexOf('<!-- bench:start -->');
if (start < 0) throw new Error('README.md has no <!-- bench:start --> marker');
const from = start + '<!-- bench:start -->'.length + 1;
const end = text.indexOf('\n\n', from);
writeFileSync('README.md', text.slice(0, from) + table + text.slice(end));
const scored = r.targets.filter((t) => t.pass !== null);
console.log(`README.md: ${rows.length} rows (${scored.filter((t) => t.pass).length} of ${scored.length} targets met), run of ${r.date}`);
