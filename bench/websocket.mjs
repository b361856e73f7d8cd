/**
 * WebSocket messages per second through the listener (issue 23): `startMockServer` (from
 * `dist/`) with a route whose step replies `{"type":"pong"}` to a JSON message matched by path
 * (`{ "on": { "type": "ping" } }`), against a bare `ws` server sending the same bytes back for
 * every message, each in a child process of its own, in the same run. The parent opens N sockets
 * with the `ws` client; each does request/reply round trips one after the other for the measured
 * seconds. Rounds interleave the two servers; the table shows medians and mockyard's ratio to the
 * bare server (target: at least 0.7x). mockyard records every message (two records per round
 * trip) in its request log, as it always does. Bounded in time; prints figures, asserts nothing.
 *
 *   npm run build && npx node bench/websocket.mjs                 # 50 sockets, 3 rounds of 5 s
 *   npx node bench/websocket.mjs --sockets 10 --seconds 3 --rounds 5
 */
import { execFileSync, fork } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { WebSocket, WebSocketServer } from 'ws'

const PING = '{"type":"ping","at":1}'
const PONG = '{"type":"pong"}'

if (process.argv[2] === '--child') {
  const kind = process.argv[3]
  let url
  if (kind === 'bare') {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false })
    server.on('connection', (socket) => socket.on('message', () => socket.send(PONG)))
    await new Promise((resolve) => server.once('listening', resolve))
    url = `ws://127.0.0.1:${server.address().port}/v1/chat`
  } else {
    const { startMockServer } = await import('../dist/node/index.js')
    const dir = mkdtempSync(join(tmpdir(), 'mockyard-bench-ws-'))
    writeFileSync(join(dir, 'routes.json'), JSON.stringify({ 'v1/chat': { websocket: [{ on: { type: 'ping' }, send: { type: 'pong' } }] } }))
    const quiet = () => ({ log() {}, debug() {}, info() {}, warn() {}, error: console.error })
    const server = await startMockServer({ routes: join(dir, 'routes.json'), data: dir, logProvider: quiet })
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
    url = `${server.url.replace(/^http/, 'ws')}/v1/chat`
  }
  process.on('message', (message) => {
    if (message === 'cpu') process.send({ cpu: process.cpuUsage() })
  })
  process.on('disconnect', () => process.exit(0))
  process.send({ url })
  await new Promise(() => {})
}

const { values } = parseArgs({
  options: {
    sockets: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
  },
})
const sockets = Number(values.sockets)
const seconds = Number(values.seconds)
const warmup = Number(values.warmup)
const rounds = Number(values.rounds)
if (!(sockets > 0) || !(seconds > 0) || !(warmup >= 0) || !(rounds > 0)) {
  console.error('usage: node bench/websocket.mjs [--sockets 50] [--seconds 5] [--warmup 1] [--rounds 3]')
  process.exit(2)
}
setTimeout(() => {
  console.error('websocket bench: time is up')
  process.exit(3)
}, (2 * rounds * (seconds + warmup + 5) + 60) * 1000).unref()

/** Pins a child to core 1 when `taskset` is there, as bench/server.mjs does (the client runs beside it). */
function pin(pid) {
  try {
    execFileSync('taskset', ['-cp', '1', String(pid)], { stdio: 'ignore' })
  } catch {
    // No taskset: the figures are noisier, not wrong.
  }
}

async function startServer(kind) {
  const child = fork(new URL(import.meta.url), ['--child', kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  pin(child.pid)
  const { url } = await new Promise((resolve, reject) => {
    child.once('message', resolve)
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${code}`)))
  })
  return { child, url }
}

const cpuOf = (child) =>
  new Promise((resolve) => {
    child.once('message', (message) => resolve(message.cpu.user + message.cpu.system))
    child.send('cpu')
  })

/** N sockets doing round trips for `ms`: how many replies came back in that time. */
async function load(url, ms) {
  const clients = await Promise.all(
    Array.from({ length: sockets }, () => {
      const socket = new WebSocket(url, { perMessageDeflate: false })
      return new Promise((resolve, reject) => {
        socket.once('open', () => resolve(socket))
        socket.once('error', reject)
      })
    }),
  )
  let replies = 0
  let running = true
  for (const socket of clients) {
    socket.on('message', () => {
      replies++
      if (running) socket.send(PING)
    })
    socket.send(PING)
  }
  await new Promise((resolve) => setTimeout(resolve, ms))
  running = false
  const counted = replies
  for (const socket of clients) socket.terminate()
  return counted
}

async function measure(kind) {
  const { child, url } = await startServer(kind)
  try {
    if (warmup > 0) await load(url, warmup * 1000)
    const before = await cpuOf(child)
    const replies = await load(url, seconds * 1000)
    const cpu = (await cpuOf(child)) - before
    return { rate: replies / seconds, cpuPerMessage: cpu / replies }
  } finally {
    child.kill()
  }
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
const results = { bare: [], mockyard: [] }
for (let round = 1; round <= rounds; round++) {
  for (const kind of round % 2 === 1 ? ['bare', 'mockyard'] : ['mockyard', 'bare']) {
    const result = await measure(kind)
    results[kind].push(result)
    console.log(`round ${round} ${kind.padEnd(8)} ${Math.round(result.rate).toLocaleString('en')} round trips/s, ${result.cpuPerMessage.toFixed(1)} µs server CPU per round trip`)
  }
}
const bare = median(results.bare.map((r) => r.rate))
const mockyard = median(results.mockyard.map((r) => r.rate))
const bareCpu = median(results.bare.map((r) => r.cpuPerMessage))
const mockyardCpu = median(results.mockyard.map((r) => r.cpuPerMessage))
console.log(`\n${sockets} sockets, ${rounds} rounds of ${seconds} s (medians)`)
console.log(`| server | round trips/s | server CPU µs per round trip |`)
console.log(`| --- | --- | --- |`)
console.log(`| bare ws echo | ${Math.round(bare).toLocaleString('en')} | ${bareCpu.toFixed(1)} |`)
console.log(`| mockyard | ${Math.round(mockyard).toLocaleString('en')} | ${mockyardCpu.toFixed(1)} |`)
console.log(`\nmockyard / bare: ${(mockyard / bare).toFixed(2)}x the round trips per second (target: at least 0.7x); ${(mockyardCpu / bareCpu).toFixed(2)}x the CPU per round trip`)
process.exit(0)
