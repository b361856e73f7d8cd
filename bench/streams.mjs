/**
 * Streams and Server-Sent Events (issue 22): how close the pieces of `stream` and `events`
 * answers come to their schedule with many open at once, and what 10,000 streamed answers leave
 * in memory. Prints figures, asserts nothing.
 *
 *   npm run build && npx node bench/streams.mjs                # 200 concurrent, 10,000 for memory
 *   npx node bench/streams.mjs --concurrent 100 --count 2000   # a quicker look
 *
 * Timing: `--concurrent` answers open at once (half an NDJSON file by line, half SSE events;
 * opened one after the other over 25 ms, so that their pieces are not all due at one instant),
 * 20 pieces each, 25 ms apart; a piece's deviation is when it arrived minus when it was due: its
 * index times 25 ms after the schedule's start, taken as the earliest start no piece of that
 * answer beat (so a late first piece does not make the others look early). Beside it, the CPU
 * time of the serving process per piece (in process, the reader's included): less noisy than
 * the timing on a busy machine. Three servers, each in its own child
 * process: a bare `node:http` server writing the same pieces on the same timers (the baseline:
 * what the machine and the client add) and mockyard's listener (`startMockServer` from dist/),
 * both read by the parent's fetch; and mockyard in process (`createInstance` +
 * `interceptInstance`, what `setupMockServer` runs, bundled from src/ by bench/internals.mjs),
 * read by fetch in that child, beside it.
 *
 * Memory: `--count` short streamed answers (5 lines by line, 3 events then close, no delay),
 * 50 at a time, read to the end; heapUsed after gc() and RSS in the serving process before, after
 * the first tenth, and at the end (the listener's child serves only; in process the figures
 * include the client); beside them the same count of the same file not streamed (the baseline
 * in the same run).
 */
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { buildInternals } from './internals.mjs'

const PIECES = 20
const DELAY = 25
const LINES = Array.from({ length: PIECES }, (_, i) => JSON.stringify({ token: `t${i}` }) + '\n')
const EVENTS = Array.from({ length: PIECES }, (_, i) => ({ data: { n: i }, id: String(i), ...(i > 0 ? { delay: DELAY } : {}) }))

function writeFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-bench-streams-'))
  mkdirSync(join(dir, 'data'))
  writeFileSync(join(dir, 'data', 'tokens.ndjson'), LINES.join(''))
  writeFileSync(join(dir, 'data', 'short.ndjson'), LINES.slice(0, 5).join(''))
  writeFileSync(
    join(dir, 'routes.json'),
    JSON.stringify({
      tokens: { file: 'tokens.ndjson', stream: { by: 'line', delay: DELAY } },
      feed: { events: [...EVENTS, { close: true }] },
      'short-stream': { file: 'short.ndjson', stream: { by: 'line', delay: 0 } },
      'short-events': { events: [{ data: { n: 1 } }, { data: 'two' }, { data: { n: 3 } }, { close: true }] },
      'short-plain': { file: 'short.ndjson' },
    }),
  )
  return dir
}

// ------------------------------------------------------------------ child: one server
if (process.argv[2] === '--child') {
  const [kind, dir, internals] = process.argv.slice(3)
  const quiet = () => ({ log() {}, debug() {}, info() {}, warn() {}, error: console.error })
  const memory = () => {
    globalThis.gc()
    const { rss, heapUsed } = process.memoryUsage()
    return { rss, heapUsed }
  }
  let base
  if (kind === 'bare') {
    const server = createServer((req, res) => {
      const sse = req.url === '/feed'
      res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/x-ndjson' })
      const started = performance.now()
      const piece = (i) => (sse ? `id: ${i}\ndata: {"n":${i}}\n\n` : LINES[i])
      let i = 0
      const next = () => {
        res.write(piece(i++))
        if (i === PIECES) return res.end()
        setTimeout(next, Math.max(0, started + i * DELAY - performance.now()))
      }
      next()
    })
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${server.address().port}`
  } else if (kind === 'listener') {
    const { startMockServer } = await import('../dist/node/index.js')
    const server = await startMockServer({ routes: join(dir, 'routes.json'), latency: 0, logProvider: quiet })
    base = server.url
  } else {
    const { createInstance, interceptInstance } = await import(internals)
    const instance = await createInstance({ routes: join(dir, 'routes.json'), logProvider: quiet }, { latency: 0, watch: false, logLevel: 'error' })
    interceptInstance(instance)
    base = 'http://bench.test'
  }
  const run = async (message) => {
    if (message.type === 'memory') return memory()
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage()
      return user + system
    }
    if (message.type === 'timing') return timing(base, message.concurrent)
    if (message.type === 'many') return many(base, message.path, message.count)
  }
  process.on('message', async (message) => process.send({ id: message.id, result: await run(message) }))
  process.on('disconnect', () => process.exit(0))
  // Over HTTP the parent reads (the server alone in this process); in process the reader runs here.
  process.send({ ready: true, base })
  await new Promise(() => {})
}

/** Opens `concurrent` answers at once and returns every piece's deviation from its schedule, in ms. */
async function timing(base, concurrent) {
  const one = async (index) => {
    const path = index % 2 === 0 ? '/tokens' : '/feed'
    // Opened over one delay, not at one instant: 200 pieces due at the very same moment measure
    // the reader's queue, not the schedule.
    await new Promise((resolve) => setTimeout(resolve, (index * DELAY) / concurrent))
    const res = await fetch(base + path)
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
    const separator = path === '/feed' ? '\n\n' : '\n'
    const arrivals = []
    let pending = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      const at = performance.now()
      pending += value
      let end
      while ((end = pending.indexOf(separator)) !== -1) {
        pending = pending.slice(end + separator.length)
        arrivals.push(at)
      }
    }
    // The schedule's start as the client can know it: the earliest start that no piece beat.
    const start = Math.min(...arrivals.map((at, i) => at - i * DELAY))
    return arrivals.map((at, i) => at - start - i * DELAY)
  }
  const all = await Promise.all(Array.from({ length: concurrent }, (_, i) => one(i)))
  return all.flat()
}

/** Reads `count` answers of `path` to the end, 50 at a time; memory after the first tenth and at the end. */
async function many(base, path, count, measure = true) {
  const batch = async (n) => {
    await Promise.all(
      Array.from({ length: n }, async () => {
        const res = await fetch(base + path)
        await res.arrayBuffer()
      }),
    )
  }
  if (!measure) {
    for (let done = 0; done < count; done += 50) await batch(Math.min(50, count - done))
    return
  }
  const before = (globalThis.gc(), process.memoryUsage())
  let tenth
  for (let done = 0; done < count; done += 50) {
    await batch(Math.min(50, count - done))
    if (tenth === undefined && done + 50 >= count / 10) tenth = (globalThis.gc(), process.memoryUsage())
  }
  const after = (globalThis.gc(), process.memoryUsage())
  return { before: pick(before), tenth: pick(tenth), after: pick(after) }
}
function pick({ rss, heapUsed }) {
  return { rss, heapUsed }
}

// ------------------------------------------------------------------ parent
const { values } = parseArgs({ options: { concurrent: { type: 'string', default: '200' }, count: { type: 'string', default: '10000' } } })
const concurrent = Number(values.concurrent)
const count = Number(values.count)
if (!(concurrent > 0) || !(count > 0)) {
  console.error('usage: npx node bench/streams.mjs [--concurrent 200] [--count 10000]')
  process.exit(2)
}
setTimeout(() => {
  console.error('streams: time is up')
  process.exit(3)
}, 600_000).unref()

const dir = writeFixture()
const internals = await buildInternals()

function start(kind) {
  const child = fork(new URL(import.meta.url).pathname, ['--child', kind, dir, internals], { execArgv: ['--expose-gc'] })
  let next = 0
  const waiting = new Map()
  child.on('message', (message) => waiting.get(message.id)?.(message.result))
  const ready = new Promise((resolve) => child.once('message', (message) => resolve(message.base)))
  return {
    ready,
    ask: (message) =>
      new Promise((resolve) => {
        const id = ++next
        waiting.set(id, resolve)
        child.send({ ...message, id })
      }),
    stop: () => child.kill(),
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
const ms = (value) => `${value >= 0 ? ' ' : ''}${value.toFixed(1)} ms`
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

console.log(`Piece timing: ${concurrent} answers open at once (NDJSON by line and SSE), ${PIECES} pieces ${DELAY} ms apart; deviation = arrival - schedule`)
console.log('server              pieces   median     p95       max       CPU per piece (the serving process)')
for (const kind of ['bare', 'listener', 'in-process']) {
  const server = start(kind)
  const base = await server.ready
  const measure = (n) => (kind === 'in-process' ? server.ask({ type: 'timing', concurrent: n }) : timing(base, n))
  // A warm-up round, then the measured one.
  await measure(Math.min(20, concurrent))
  const cpuBefore = await server.ask({ type: 'cpu' })
  const deviations = (await measure(concurrent)).sort((a, b) => a - b)
  const cpu = (await server.ask({ type: 'cpu' })) - cpuBefore
  console.log(`${kind.padEnd(18)} ${String(deviations.length).padStart(7)}  ${ms(quantile(deviations, 0.5))}  ${ms(quantile(deviations, 0.95))}  ${ms(deviations.at(-1))}  ${(cpu / deviations.length).toFixed(0).padStart(6)} µs`)
  server.stop()
}

console.log(`\nMemory of the serving process over ${count} answers read to the end (heapUsed after gc(); RSS)`)
console.log('server       answers          heap before  after 1/10   at the end   RSS before  at the end')
for (const kind of ['listener', 'in-process']) {
  for (const path of ['/short-plain', '/short-stream', '/short-events']) {
    const server = start(kind)
    const base = await server.ready
    let before, tenth, after
    if (kind === 'in-process') ({ before, tenth, after } = await server.ask({ type: 'many', path, count }))
    else {
      // The parent reads; the figures are the server's alone.
      before = await server.ask({ type: 'memory' })
      await many(base, path, Math.ceil(count / 10), false)
      tenth = await server.ask({ type: 'memory' })
      await many(base, path, count - Math.ceil(count / 10), false)
      after = await server.ask({ type: 'memory' })
    }
    console.log(`${kind.padEnd(12)} ${path.slice(1).padEnd(16)} ${mb(before.heapUsed).padStart(11)}  ${mb(tenth.heapUsed).padStart(10)}  ${mb(after.heapUsed).padStart(11)}  ${mb(before.rss).padStart(10)}  ${mb(after.rss).padStart(10)}`)
    server.stop()
  }
}
rmSync(dir, { recursive: true, force: true })
process.exit(0)
