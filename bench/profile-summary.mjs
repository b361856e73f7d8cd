/**
 * Summarizes a V8 `.cpuprofile` (from `npm run bench -- --profile DIR`): self time by category,
 * the top functions by self and inclusive time, and the hottest source lines of the project's
 * own code (dist/).
 *
 *   npx node bench/profile-summary.mjs DIR/mockyard/CPU.….cpuprofile [--top 30] [--lines 25]
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a))
const option = (name, fallback) => {
  const i = args.indexOf(name)
  return i === -1 ? fallback : Number(args[i + 1])
}
if (!file) {
  console.error('usage: npx node bench/profile-summary.mjs FILE.cpuprofile [--top N] [--lines N]')
  process.exit(2)
}
const TOP = option('--top', 30)
const LINES = option('--lines', 25)

const profile = JSON.parse(readFileSync(file, 'utf8'))
const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
const parentOf = new Map()
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id)
const hits = new Map()
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1)
const total = profile.samples.length
const busy = total - [...hits].filter(([id]) => nodes.get(id).callFrame.functionName === '(idle)').reduce((s, [, c]) => s + c, 0)

const shortUrl = (url) => url.replace(/^file:\/\//, '').replace(/.*\/(dist|node_modules)\//, '$1/')
const label = (n) => `${n.callFrame.functionName || '(anonymous)'}  ${shortUrl(n.callFrame.url)}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`

function category(n) {
  const { functionName: name, url } = n.callFrame
  if (name === '(idle)') return 'idle'
  if (name === '(garbage collector)') return 'garbage collector'
  if (name === '(program)') return '(program): V8/native, unattributed'
  if (/\/dist\//.test(url)) return 'project code (dist/)'
  if (/node_modules\//.test(url)) return `dependency ${url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1')}`
  if (/task_queues|async_hooks|async_context_frame|promises/.test(url) || name === 'runMicrotasks') return 'ticks, microtasks, async context'
  if (/_http_|node:net|streams|stream_base|node:events|timers|node:buffer|internal\/buffer/.test(url)) return 'node: http, net, streams, events'
  if (url === '') return `native: ${name === 'writev' || name === 'writeUtf8String' || name === 'writeBuffer' ? 'socket writes' : name === 'parse' || name === 'execute' ? 'HTTP parser (llhttp)' : 'other'}`
  if (/^node:/.test(url)) return 'node: other'
  return 'other'
}

const pct = (n, of = total) => `${((n / of) * 100).toFixed(1).padStart(5)}%`
const add = (map, key, n) => map.set(key, (map.get(key) ?? 0) + n)

const byCategory = new Map()
const self = new Map()
const inclusive = new Map()
for (const [id, count] of hits) {
  const node = nodes.get(id)
  add(byCategory, category(node), count)
  add(self, label(node), count)
  const seen = new Set()
  for (let cur = id; cur !== undefined; cur = parentOf.get(cur)) {
    const key = label(nodes.get(cur))
    if (!seen.has(key)) {
      seen.add(key)
      add(inclusive, key, count)
    }
  }
}

// Line-level self time of the project's own code, from positionTicks.
const lineTicks = new Map()
for (const n of profile.nodes) {
  if (!/\/dist\//.test(n.callFrame.url)) continue
  for (const { line, ticks } of n.positionTicks ?? []) add(lineTicks, `${n.callFrame.url}\u0000${line}`, ticks)
}
const sources = new Map()
function sourceLine(url, line) {
  if (!sources.has(url)) {
    const path = url.startsWith('file:') ? fileURLToPath(url) : url
    sources.set(url, existsSync(path) ? readFileSync(path, 'utf8').split('\n') : [])
  }
  return (sources.get(url)[line - 1] ?? '').trim().slice(0, 110)
}

const sorted = (map) => [...map].sort((a, b) => b[1] - a[1])
console.log(`${file}\n${total} samples, ${busy} busy (${pct(busy)}); percentages below are of busy samples\n`)
console.log('Self time by category')
for (const [key, count] of sorted(byCategory)) if (key !== 'idle') console.log(`${pct(count, busy)}  ${key}`)
console.log(`\nTop ${TOP} functions by self time`)
for (const [key, count] of sorted(self).filter(([k]) => !k.startsWith('(idle)')).slice(0, TOP)) console.log(`${pct(count, busy)}  ${key}`)
console.log(`\nProject code (dist/) by inclusive time`)
for (const [key, count] of sorted(inclusive).filter(([k]) => k.includes('dist/')).slice(0, TOP)) console.log(`${pct(count, busy)}  ${key}`)
console.log(`\nHottest lines of project code (self time)`)
for (const [key, count] of sorted(lineTicks).slice(0, LINES)) {
  const [url, line] = key.split('\u0000')
  console.log(`${pct(count, busy)}  ${shortUrl(url)}:${line}  ${sourceLine(url, Number(line))}`)
}
