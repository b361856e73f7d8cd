/**
 * Memory of the dashboard's event stream with clients that never read (issue 20): the listener's
 * RSS after a burst of requests with no dashboard open, then after the same burst with N event
 * stream clients (default 50) whose sockets never read. Each stream is bounded by 256 KB unread
 * (docs/behaviour.md, "The dashboard"), so the second figure should stay within about
 * N x 256 KB of the first, whatever the length of the burst.
 *
 *   npm run build && npx node bench/dashboard-clients.mjs
 *   npx node bench/dashboard-clients.mjs --clients 50 --seconds 10 --connections 10 --rate 700
 *
 * The listener (`startMockServer` from `dist/`) runs in a child process, which reports its own
 * memory over IPC; the clients are raw sockets on 127.0.0.1 that send the request and are then
 * paused (what a hung or suspended browser tab looks like to the server).
 */
import { fork } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
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

/** The listener: answers `{ type: 'memory' }` with its RSS and heap after a GC. */
async function child(dir) {
  const { startMockServer } = await import('../dist/node/index.js')
  const server = await startMockServer({ routes: join(dir, 'routes.json'), latency: 0, port: 0, host: '127.0.0.1', logProvider: () => ({ log() {}, debug() {}, info() {}, warn() {}, error: console.error }) })
  process.on('message', (message) => {
    if (message.type === 'memory') {
      globalThis.gc?.()
      const { rss, heapUsed, heapTotal, external } = process.memoryUsage()
      process.send({ type: 'memory', rss, heapUsed, heapTotal, external })
    }
  })
  process.on('disconnect', () => process.exit(0))
  process.send({ type: 'ready', url: server.url })
}

async function parent() {
  const CLIENTS = option('clients', 50)
  const SECONDS = option('seconds', 10)
  const CONNECTIONS = option('connections', 10)
  // Under 200 records per 250 ms, so that every batch carries records (more makes a tiny `resync`).
  const RATE = option('rate', 700)
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-bench-dashboard-'))
  const data = join(dir, 'data')
  writeFileSync(join(dir, 'routes.json'), JSON.stringify({ 'v1/users': { file: 'users.json' } }))
  mkdirSync(data)
  writeFileSync(join(data, 'users.json'), JSON.stringify({ users: [{ id: 1, name: 'Ada' }] }))
  const server = fork(fileURLToPath(import.meta.url), ['--child', dir], { execArgv: ['--expose-gc'], stdio: 'inherit' })
  const ask = (type) =>
    new Promise((resolve) => {
      server.once('message', resolve)
      server.send({ type })
    })
  const { url } = await new Promise((resolve) => server.once('message', resolve))
  const { port } = new URL(url)
  const MB = (bytes) => (bytes / 1024 / 1024).toFixed(1)
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })

  /** Requests from CONNECTIONS loops for `seconds`, each path long enough to make records of a few hundred bytes. */
  async function burst(seconds) {
    const until = Date.now() + seconds * 1000
    let sent = 0
    const started = Date.now()
    const loop = async () => {
      while (Date.now() < until) {
        const due = started + (sent / RATE) * 1000 - Date.now()
        if (due > 0) await new Promise((resolve) => setTimeout(resolve, due))
        await new Promise((resolve, reject) => {
          const req = http.get({ host: '127.0.0.1', port, agent, path: `/v1/users?page=${sent}&filter=${'x'.repeat(200)}` }, (res) => {
            res.resume()
            res.on('end', resolve)
          })
          req.on('error', reject)
        })
        sent++
      }
    }
    await Promise.all(Array.from({ length: CONNECTIONS }, loop))
    return sent
  }

  try {
    const start = await ask('memory')
    const warm = await burst(SECONDS)
    const before = await ask('memory')
    const sockets = []
    for (let i = 0; i < CLIENTS; i++) {
      const socket = net.connect({ host: '127.0.0.1', port: Number(port) })
      socket.on('error', () => {})
      socket.write(`GET /__mockyard/dashboard/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`)
      socket.pause()
      sockets.push(socket)
    }
    const loaded = await burst(SECONDS)
    // Let the last batches go out (one every 250 ms).
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const after = await ask('memory')
    // A dropped client's stream has ended: read what is buffered and see which ones end.
    const ended = new Set()
    for (const socket of sockets) {
      socket.on('end', () => ended.add(socket)).on('close', () => ended.add(socket))
      socket.resume()
    }
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const open = CLIENTS - ended.size
    console.log(`dashboard event stream, ${CLIENTS} clients that never read; ${CONNECTIONS} connections, ${RATE} requests/s for ${SECONDS} s per phase`)
    console.log(`  at start                        RSS ${MB(start.rss)} MB   heap ${MB(start.heapUsed)} MB of ${MB(start.heapTotal)} MB   external ${MB(start.external)} MB`)
    console.log(`  after ${String(warm).padStart(7)} requests, no client RSS ${MB(before.rss)} MB   heap ${MB(before.heapUsed)} MB of ${MB(before.heapTotal)} MB   external ${MB(before.external)} MB`)
    console.log(`  after ${String(loaded).padStart(7)} requests, ${CLIENTS} clients RSS ${MB(after.rss)} MB   heap ${MB(after.heapUsed)} MB of ${MB(after.heapTotal)} MB   external ${MB(after.external)} MB`)
    console.log(`  growth with the clients: ${MB(after.rss - before.rss)} MB RSS (${((after.rss - before.rss) / CLIENTS / 1024).toFixed(0)} KB per client; bound 256 KB unread each)`)
    console.log(`  clients whose connection the server still holds open: ${open} of ${CLIENTS}`)
    for (const socket of sockets) socket.destroy()
  } finally {
    agent.destroy()
    server.kill()
    rmSync(dir, { recursive: true, force: true })
  }
}
