/**
 * What hung requests cost the listener (issue 22, docs/behaviour.md "Faults"): its process CPU
 * time over an idle window with no request open, then over the same window with N requests
 * (default 1,000) hanging on a `"fault": "hang"` route, printed side by side with the delta and
 * the ratio. A hang holds a socket and one abort listener, no timer: the two figures should be
 * alike. Then the time `stop()` takes with them all open (they are not work in flight: no grace
 * is waited for), and the memory they hold.
 *
 *   npm run build && npx node bench/fault-hang.mjs
 *   npx node bench/fault-hang.mjs --hung 1000 --seconds 2 --rounds 3
 *
 * The listener (`startMockServer` from `dist/`) runs in a child process, which reports its own
 * CPU time and memory over IPC; the clients are raw sockets on 127.0.0.1.
 */
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(args[at + 1])
}

if (args[0] === '--child') await child(args[1])
else await parent()

/** The listener: reports CPU time, memory and the number of hung requests recorded; stops on demand. */
async function child(dir) {
  const { startMockServer } = await import('../dist/node/index.js')
  const server = await startMockServer({ routes: join(dir, 'routes.json'), latency: 0, port: 0, host: '127.0.0.1', requestLog: { limit: 100_000 }, logProvider: () => ({ log() {}, debug() {}, info() {}, warn() {}, error: console.error }) })
  process.on('message', async (message) => {
    if (message.type === 'usage') {
      // A collection only where memory is read: inside a CPU window it would count its own work.
      if (message.gc) globalThis.gc?.()
      const { user, system } = process.cpuUsage()
      process.send({ type: 'usage', cpuMs: (user + system) / 1000, rss: process.memoryUsage().rss, hung: server.requests({ route: 'v1/stuck' }).length })
    } else if (message.type === 'stop') {
      const started = performance.now()
      // A grace of a minute: were hung requests work in flight, stop() would wait for it.
      await server.stop({ graceMs: 60_000 })
      process.send({ type: 'stopped', ms: performance.now() - started })
    }
  })
  process.on('disconnect', () => process.exit(0))
  process.send({ type: 'ready', url: server.url })
}

async function parent() {
  const HUNG = option('hung', 1000)
  const SECONDS = option('seconds', 2)
  const ROUNDS = option('rounds', 3)
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-bench-hang-'))
  writeFileSync(join(dir, 'routes.json'), JSON.stringify({ 'v1/stuck': { fault: 'hang' } }))
  const server = fork(fileURLToPath(import.meta.url), ['--child', dir], { execArgv: ['--expose-gc'], stdio: 'inherit' })
  const waitFor = (type) => new Promise((resolve) => server.on('message', function listener(message) {
    if (message.type !== type) return
    server.off('message', listener)
    resolve(message)
  }))
  const ask = (type, gc = false) => {
    const answer = waitFor(type === 'stop' ? 'stopped' : type)
    server.send({ type, gc })
    return answer
  }
  const { url } = await waitFor('ready')
  const { port } = new URL(url)
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
  /** The child's CPU time (ms) over an idle window of SECONDS. */
  const idleCpu = async () => {
    const before = await ask('usage')
    await sleep(SECONDS * 1000)
    const after = await ask('usage')
    return after.cpuMs - before.cpuMs
  }

  const without = []
  for (let round = 0; round < ROUNDS; round++) without.push(await idleCpu())
  const rssBefore = (await ask('usage', true)).rss

  const sockets = []
  for (let i = 0; i < HUNG; i++) {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(`GET /v1/stuck HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`))
    socket.on('error', () => {})
    sockets.push(socket)
  }
  for (;;) {
    const { hung } = await ask('usage')
    if (hung >= HUNG) break
    await sleep(50)
  }
  // Let the burst's own work settle before measuring.
  await sleep(500)
  const withHung = []
  for (let round = 0; round < ROUNDS; round++) withHung.push(await idleCpu())
  const rssWith = (await ask('usage', true)).rss
  const closedBefore = () => sockets.filter((socket) => socket.destroyed || socket.readableEnded).length
  const { ms: stopMs } = await ask('stop')
  await sleep(100)
  const closed = closedBefore()
  server.disconnect()
  for (const socket of sockets) socket.destroy()
  rmSync(dir, { recursive: true, force: true })

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  const a = median(without)
  const b = median(withHung)
  console.log(`listener CPU time over ${SECONDS} s idle (median of ${ROUNDS} windows):`)
  console.log(`  no request open        ${a.toFixed(2)} ms   (${without.map((v) => v.toFixed(2)).join(', ')})`)
  console.log(`  ${String(HUNG).padEnd(5)} hung requests    ${b.toFixed(2)} ms   (${withHung.map((v) => v.toFixed(2)).join(', ')})`)
  console.log(`  delta ${(b - a).toFixed(2)} ms per ${SECONDS} s, ratio ${(a > 0 ? b / a : Infinity).toFixed(2)}x`)
  console.log(`memory: RSS ${(rssBefore / 2 ** 20).toFixed(1)} MB -> ${(rssWith / 2 ** 20).toFixed(1)} MB with the hung requests (${(((rssWith - rssBefore) / HUNG) / 1024).toFixed(1)} KB each)`)
  console.log(`stop() with ${HUNG} hung requests (grace 60 s): ${stopMs.toFixed(1)} ms; ${closed} of ${HUNG} client sockets closed by the server`)
}
