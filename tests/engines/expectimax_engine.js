// A conform-protocol engine in JavaScript, written from docs/reference/protocol.md alone:
// exact expectimax over the JSON tree format, in fractions of BigInt (arbitrary-precision
// integers), one request a line on stdin, one answer a line on stdout, flushed after each.
// Run: node expectimax_engine.js  (starbench conform --engine "node expectimax_engine.js" ...)
"use strict";
const readline = require("readline");

function gcd(a, b) { a = a < 0n ? -a : a; b = b < 0n ? -b : b; while (b) { [a, b] = [b, a % b]; } return a; }
function frac(n, d) { if (d < 0n) { n = -n; d = -d; } const g = gcd(n, d) || 1n; return [n / g, d / g]; }
function parse(x) {            // a JSON integer or an exact "a/b" string (a sign on a only)
  if (typeof x === "number") return [BigInt(x), 1n];
  const [a, b] = String(x).split("/");
  return frac(BigInt(a), BigInt(b === undefined ? 1 : b));
}
const add = (p, q) => frac(p[0] * q[1] + q[0] * p[1], p[1] * q[1]);
const mul = (p, q) => frac(p[0] * q[0], p[1] * q[1]);
const cmp = (p, q) => { const d = p[0] * q[1] - q[0] * p[1]; return d < 0n ? -1 : d > 0n ? 1 : 0; };
const text = (p) => (p[1] === 1n ? p[0].toString() : `${p[0]}/${p[1]}`);

function value(node) {
  if (typeof node !== "object") return parse(node);  // a leaf
  const kind = Object.keys(node)[0];
  const children = node[kind];
  if (kind === "chance") {
    let sum = [0n, 1n];
    for (const [p, child] of children) sum = add(sum, mul(parse(p), value(child)));
    return sum;
  }
  let best = null;
  for (const child of children) {
    const v = value(child);
    if (best === null || (kind === "max" ? cmp(v, best) > 0 : cmp(v, best) < 0)) best = v;
  }
  return best;
}

function answer(request) {
  const root = request.tree.root;
  const v = value(root);              // expectimax ignores "window": the exact value is right
  let best = null;                    // a leaf or chance root: null
  if (typeof root === "object" && !("chance" in root)) {
    const kind = Object.keys(root)[0];
    const values = root[kind].map(value);
    best = values.findIndex((x) => cmp(x, v) === 0);
  }
  return { value: text(v), best_move: best };
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (!line.trim()) return;
  process.stdout.write(JSON.stringify(answer(JSON.parse(line))) + "\n");
});
lines.on("close", () => process.exit(0));  // end of input: exit
