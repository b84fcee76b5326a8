// Differential-test oracle for emoted's Molang (tests/molang_oracle.rs).
//
// Reads {"bindings": {...}, "expressions": ["...", ...]} as JSON on standard
// input and writes a JSON array with molangjs 1.7.1's value for each
// expression: a number, or "Infinity"/"-Infinity"/"NaN" for non-finite ones.
// Each expression gets a fresh parser, so neither `v.` nor molangjs's
// leaking `t.` values carry over between cases.
//
// molangjs is mis-packaged ("type": "module" with a CommonJS "main"), so the
// ESM build is imported by path.
import Molang from 'molangjs/dist/molang.esm.js';
import { readFileSync } from 'node:fs';

const input = JSON.parse(readFileSync(0, 'utf8'));

// Query functions molangjs does not have itself, bound like a host would.
const functions = {
  'query.position': (axis) => [1.5, 64, -3.25][axis] ?? 0,
  'query.count': (...args) => args.length,
};

const results = input.expressions.map((source) => {
  const parser = new Molang();
  parser.cache_enabled = false;
  const value = parser.parse(source, { ...input.bindings, ...functions });
  if (typeof value !== 'number') return 'not a number';
  return Number.isFinite(value) ? value : String(value);
});
process.stdout.write(JSON.stringify(results));
