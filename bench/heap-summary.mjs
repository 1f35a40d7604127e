// What a V8 heap holds, by kind, and what grew between two snapshots (issue 30 item 8: the soak's
// HEAP_SNAPSHOTS=1 writes one at minute 5 and one at the end, via --heapsnapshot-signal).
//   node bench/heap-summary.mjs <snapshot> [later snapshot] [top=25]
// One snapshot: the `top` kinds by retained self size (node type + constructor or string class).
// Two: the `top` kinds by growth of self size, with their counts before and after.
// Kinds are the node's type and, for objects, closures and arrays, its name (the constructor, the
// function, the array's owner edge is not followed); strings are one kind per type (string,
// concatenated string, sliced string). Reads the whole file: a 250 MiB heap's snapshot is about
// 500 MB, so give node --max-old-space-size=4096 for big ones.
import { readFileSync } from 'node:fs';

function summarize(path) {
  const snap = JSON.parse(readFileSync(path, 'utf8'));
  const { node_fields: fields, node_types: [types] } = snap.snapshot.meta;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const { nodes, strings } = snap;
  const kinds = new Map();
  let total = 0;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    const size = nodes[i + sizeAt];
    total += size;
    const named = type === 'object' || type === 'closure' || type === 'native' || type === 'hidden' || type === 'code';
    const key = named ? `${type} ${strings[nodes[i + nameAt]].slice(0, 80)}` : type;
    const k = kinds.get(key);
    if (k) { k.count++; k.bytes += size; } else kinds.set(key, { count: 1, bytes: size });
  }
  return { total, nodes: nodes.length / width, kinds };
}

const args = process.argv.slice(2);
const topArg = /^\d+$/.test(args.at(-1) ?? '') ? args.pop() : undefined;
const [a, b] = args;
if (!a) {
  console.error('usage: node bench/heap-summary.mjs <snapshot> [later snapshot] [top=25]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const mib = (n) => (n / 1048576).toFixed(1);
const first = summarize(a);
if (!b) {
  console.log(`${a}: ${mib(first.total)} MiB in ${first.nodes} nodes`);
  for (const [key, k] of [...first.kinds].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, top)) {
    console.log(`${mib(k.bytes).padStart(8)} MiB ${String(k.count).padStart(9)}  ${key}`);
  }
} else {
  const second = summarize(b);
  console.log(`${a}: ${mib(first.total)} MiB in ${first.nodes} nodes → ${b}: ${mib(second.total)} MiB in ${second.nodes} nodes`);
  const grown = [...second.kinds].map(([key, k]) => {
    const before = first.kinds.get(key) ?? { count: 0, bytes: 0 };
    return { key, bytes: k.bytes - before.bytes, count: k.count - before.count, before };
  }).sort((x, y) => y.bytes - x.bytes).slice(0, top);
  for (const g of grown) {
    console.log(`${(g.bytes >= 0 ? '+' : '') + mib(g.bytes)} MiB`.padStart(12) + ` ${(g.count >= 0 ? '+' : '') + g.count}`.padStart(10) + ` (was ${g.before.count})  ${g.key}`);
  }
}
