/**
 * The cost of `propagateSessions()` in an app server, and its isolation (issue 24). Three
 * processes: the listener (`startMockServer` from `dist/`, a child), an SSR-like app server (a
 * child: each incoming request makes one outgoing `fetch` to the listener and answers with what
 * it got), and this one, the load generator.
 *
 * 1. Cost: autocannon against the app, every request naming one of 50 sessions (by header), in
 *    interleaved rounds with `propagateSessions()` off and on in the same app process. Off, the
 *    app copies the header onto its fetch by hand, so the listener gets the same requests either
 *    way. Prints requests/s and the app process's CPU per request (one incoming request and its
 *    outgoing fetch), and the ratio on/off. Target: at most 5 % more.
 * 2. Leaks: 10,000 requests of 50 sessions (header or cookie, `fetch` or `http.get` in the app,
 *    random waits in the app before the call, 100 at once). The listener answers each session
 *    with its own `x-owner` header (a route override per session); the app answers with the
 *    owner it got. Counts the requests that came back with another session's owner, or none.
 *
 *   npm run build && npx node bench/propagate-sessions.mjs
 *   npx node bench/propagate-sessions.mjs --seconds 5 --rounds 3 --requests 10000
 *
 * Prints figures, asserts nothing.
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import http from 'node:http'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { setTimeout as delay } from 'node:timers/promises'
import autocannon from 'autocannon'

const SESSIONS = 50
const here = fileURLToPath(import.meta.url)

if (process.argv[2] === '--listener') {
  const { startMockServer } = await import('../dist/node/index.js')
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-propagate-'))
  mkdirSync(join(dir, 'data'))
  writeFileSync(join(dir, 'routes.json'), JSON.stringify({ 'v1/who': { file: 'who.json' } }))
  writeFileSync(join(dir, 'data', 'who.json'), '{"who":"anyone"}')
  const quiet = () => ({ log() {}, debug() {}, info() {}, warn() {}, error: console.error })
  const server = await startMockServer({ routes: join(dir, 'routes.json'), data: join(dir, 'data'), latency: 0, watch: false, port: 0, host: '127.0.0.1', logProvider: quiet, sessions: { limit: 1000 } })
  process.on('disconnect', () => {
    rmSync(dir, { recursive: true, force: true })
    process.exit(0)
  })
  process.send({ url: server.url })
  await new Promise(() => {})
}

if (process.argv[2] === '--app') {
  const { propagateSessions } = await import('../dist/node/index.js')
  const listener = process.argv[3]
  let propagation
  // Off, the app sends the session header itself (what it would have to do by hand), so that the
  // listener does the same work in both modes and only the app's side differs.
  const byHand = (req) => (propagation ? {} : { 'x-mockyard-session': req.headers['x-mockyard-session'] ?? '' })
  const httpGet = (url, headers) =>
    new Promise((resolve, reject) => {
      http
        .get(url, { headers }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.headers['x-owner'] ?? ''))
        })
        .on('error', reject)
    })
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://app')
    const wait = Number(url.searchParams.get('wait') ?? 0)
    if (wait) await delay(wait)
    let owner
    if (url.searchParams.get('via') === 'http') owner = await httpGet(`${listener}/v1/who`, byHand(req))
    else {
      const answer = await fetch(`${listener}/v1/who`, { headers: byHand(req) })
      await answer.arrayBuffer()
      owner = answer.headers.get('x-owner') ?? ''
    }
    res.end(owner)
  })
  server.keepAliveTimeout = 10_000
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  process.on('message', (message) => {
    if (message === 'on') propagation ??= propagateSessions({ targets: listener })
    if (message === 'off') {
      propagation?.dispose()
      propagation = undefined
    }
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage()
      return process.send({ cpu: user + system })
    }
    process.send({ ok: message })
  })
  process.on('disconnect', () => process.exit(0))
  process.send({ url: `http://127.0.0.1:${server.address().port}` })
  await new Promise(() => {})
}

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '5' }, requests: { type: 'string', default: '10000' }, connections: { type: 'string', default: '10' } } })
const seconds = Number(values.seconds)
const rounds = Number(values.rounds)
const total = Number(values.requests)
const connections = Number(values.connections)

/** Starts a child of this script in a role; resolves to it and the URL it announced. */
async function start(role, ...args) {
  const child = fork(here, [role, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const [message] = await once(child, 'message')
  return { child, url: message.url }
}

/** Sends a control message to the app and waits for its answer. */
async function tell(app, message) {
  app.child.send(message)
  const [answer] = await once(app.child, 'message')
  return answer
}

const listener = await start('--listener')
const app = await start('--app', listener.url)
const admin = (session, body) => fetch(`${listener.url}/__mockyard/routes`, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-mockyard-session': session }, body: JSON.stringify(body) })
for (let i = 0; i < SESSIONS; i++) {
  const res = await admin(`s${i}`, { 'v1/who': { file: 'who.json', responseHeader: { 'x-owner': `s${i}` } } })
  if (!res.ok) throw new Error(`override for s${i}: ${res.status} ${await res.text()}`)
}

// ---- 1. cost per outgoing fetch ----

async function load(duration) {
  let n = 0
  const result = await autocannon({
    url: `${app.url}/render`,
    connections,
    duration,
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-mockyard-session': `s${n++ % SESSIONS}` } }) }],
  })
  return result
}

const runs = { off: [], on: [] }
console.log(`cost: ${rounds} rounds x (off, on), ${seconds} s each after 2 s warm-up, ${connections} connections, one fetch to the listener per request`)
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ['off', 'on'] : ['on', 'off']
  for (const mode of order) {
    await tell(app, mode)
    await load(2)
    const before = (await tell(app, 'cpu')).cpu
    const result = await load(seconds)
    const cpu = (await tell(app, 'cpu')).cpu - before
    const requests = result.requests.total
    runs[mode].push({ rps: requests / seconds, cpuPerRequest: cpu / requests, errors: result.errors + result.non2xx })
    console.log(`  round ${round + 1} ${mode.padEnd(3)} ${(requests / seconds).toFixed(0).padStart(6)} req/s   app CPU ${(cpu / requests).toFixed(1).padStart(6)} µs/request   errors ${result.errors + result.non2xx}`)
  }
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
const summary = Object.fromEntries(Object.entries(runs).map(([mode, list]) => [mode, { rps: median(list.map((r) => r.rps)), cpu: median(list.map((r) => r.cpuPerRequest)) }]))
console.log('')
console.log('| propagateSessions | req/s (median) | app CPU per request (median) |')
console.log('| --- | --- | --- |')
console.log(`| off | ${summary.off.rps.toFixed(0)} | ${summary.off.cpu.toFixed(1)} µs |`)
console.log(`| on | ${summary.on.rps.toFixed(0)} | ${summary.on.cpu.toFixed(1)} µs |`)
console.log(`| on / off | ${(summary.on.rps / summary.off.rps).toFixed(3)} | ${(summary.on.cpu / summary.off.cpu).toFixed(3)} (target: at most 1.05) |`)
// The same round's two runs share the machine's load best: their ratio, round by round.
const paired = runs.on.map((run, i) => run.cpuPerRequest / runs.off[i].cpuPerRequest)
console.log(`CPU per request on/off, paired by round: median ${median(paired).toFixed(3)} (${paired.map((r) => r.toFixed(3)).join(', ')})`)

// ---- 2. cross-session leaks ----

await tell(app, 'on')
const agent = new http.Agent({ keepAlive: true, maxSockets: 100 })
function ask(n) {
  const session = `s${Math.floor(Math.random() * SESSIONS)}`
  const byCookie = n % 2 === 1
  const via = (n >> 1) % 2 ? 'http' : 'fetch'
  const headers = byCookie ? { cookie: `a=1; mockyard-session=${session}` } : { 'x-mockyard-session': session }
  return new Promise((resolve, reject) => {
    http
      .get(`${app.url}/render?via=${via}&wait=${Math.floor(Math.random() * 5)}`, { agent, headers }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve({ session, owner: body }))
      })
      .on('error', reject)
  })
}
let next = 0
let leaked = 0
let missing = 0
let done = 0
async function worker() {
  while (next < total) {
    const { session, owner } = await ask(next++)
    done++
    if (owner === '') missing++
    else if (owner !== session) leaked++
  }
}
const started = Date.now()
await Promise.all(Array.from({ length: 100 }, worker))
console.log('')
console.log(`leaks: ${done} requests of ${SESSIONS} sessions (header or cookie, fetch or http.get, random waits, 100 at once) in ${((Date.now() - started) / 1000).toFixed(1)} s`)
console.log(`  answered with another session's data: ${leaked}`)
console.log(`  answered without a session: ${missing}`)

agent.destroy()
app.child.disconnect()
listener.child.disconnect()
