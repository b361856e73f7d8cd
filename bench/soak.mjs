/**
 * Soak test of the CLI listener on the bundled mocks (mocks/config.js: routes, data and the
 * notifications handlers): 10 connections for 2 minutes with one
 * session, then 2 minutes with a new `x-mockyard-session` per request; every 5 s it prints the
 * requests answered, the errors and the server's RSS, so memory that grows without end (per
 * request or per session) shows. Bounded in time; prints figures, asserts nothing.
 *
 *   npm run build && npx node bench/soak.mjs                 # 2 x 120 s
 *   npx node bench/soak.mjs --seconds 15 --connections 4     # a short check
 */
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '120' },
    connections: { type: 'string', default: '10' },
    interval: { type: 'string', default: '5' },
    help: { type: 'boolean', short: 'h' },
  },
})
if (values.help) {
  console.log('usage: node bench/soak.mjs [--seconds 120] [--connections 10] [--interval 5]   (seconds per phase)')
  process.exit(0)
}
const seconds = Number(values.seconds)
const connections = Number(values.connections)
const interval = Number(values.interval)
if (!(seconds > 0) || !(connections > 0) || !(interval > 0)) {
  console.error('--seconds, --connections and --interval take positive numbers')
  process.exit(2)
}

const root = fileURLToPath(new URL('../', import.meta.url))
const cli = `${root}dist/cli/main.js`
// Whatever happens, the soak ends: both phases, plus a minute for start and stop.
setTimeout(() => {
  console.error('soak: time is up, stopping')
  process.exit(3)
}, (2 * seconds + 60) * 1000).unref()

// The bundled mocks: routes, data and the notifications handlers (whose store is per session).
const server = spawn(process.execPath, [cli, '--config', `${root}mocks/config.js`, '--port', '0', '--host', '127.0.0.1', '--latency', '0', '--no-watch', '--log', 'silent'], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
const stopServer = () => {
  if (server.exitCode === null) server.kill('SIGTERM')
}
process.on('exit', stopServer)
const url = await new Promise((resolve, reject) => {
  let out = ''
  server.stdout.on('data', (chunk) => {
    out += chunk
    const match = /mockyard listening on (\S+)/.exec(out)
    if (match) resolve(match[1])
  })
  server.once('exit', (code) => reject(new Error(`the CLI exited with ${code} before listening (run npm run build first)`)))
})

/** The server's resident memory in MB (Linux /proc; elsewhere ps). */
function rssMb() {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1])
    if (kb > 0) return kb / 1024
  } catch {
    // Not Linux: ask ps.
  }
  try {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(server.pid)], { encoding: 'utf8' }).trim()) / 1024
  } catch {
    return NaN
  }
}

const requests = [
  { method: 'GET', path: '/v1/users' },
  { method: 'GET', path: '/v1/claims?status=open&owner=me' },
  { method: 'GET', path: '/v1/jobs/42' },
  { method: 'GET', path: '/v1/profile', headers: { 'x-role': 'admin' } },
  { method: 'POST', path: '/v1/payments', headers: { 'content-type': 'application/json' }, body: '{"method":{"type":"card"}}' },
  { method: 'POST', path: '/v1/payments', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'kind=wire&proof=receipt.pdf&lines[2][sku]=X-3' },
  { method: 'GET', path: '/api/v1/notifications?limit=5' },
  // A change to the notifications store: a session's own copy of it.
  { method: 'PATCH', path: '/api/v1/notifications/read-1', headers: { 'content-type': 'application/json' }, body: '{"viewed":true}' },
]

async function phase(name, perRequestSession) {
  let session = 0
  const counts = { ok: 0, unexpected: 0, errors: 0 }
  const startRss = rssMb()
  let maxRss = startRss
  console.log(`\n${name}: ${connections} connections for ${seconds} s against ${url}`)
  console.log('   t(s)   requests    req/s   non-2xx/3xx   errors   RSS (MB)')
  const instance = autocannon({
    url,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    requests: requests.map((request) => ({
      ...request,
      setupRequest: perRequestSession
        ? (req) => ({ ...req, headers: { ...req.headers, 'x-mockyard-session': `soak-${++session}` } })
        : (req) => ({ ...req, headers: { ...req.headers, 'x-mockyard-session': 'soak' } }),
    })),
  })
  instance.on('response', (_client, status) => {
    if (status >= 200 && status < 400) counts.ok++
    else counts.unexpected++
  })
  instance.on('reqError', () => counts.errors++)
  const started = Date.now()
  let last = 0
  let lastTotal = 0
  const report = () => {
    const t = (Date.now() - started) / 1000
    const total = counts.ok + counts.unexpected
    const rss = rssMb()
    maxRss = Math.max(maxRss, rss)
    const rate = (total - lastTotal) / Math.max(0.001, t - last)
    console.log(`${t.toFixed(0).padStart(7)} ${String(total).padStart(10)} ${rate.toFixed(0).padStart(8)} ${String(counts.unexpected).padStart(13)} ${String(counts.errors).padStart(8)} ${rss.toFixed(1).padStart(10)}`)
    last = t
    lastTotal = total
  }
  const ticker = setInterval(report, interval * 1000)
  const result = await instance
  clearInterval(ticker)
  report()
  const endRss = rssMb()
  console.log(
    `${name}: ${result.requests.total} requests, ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx (3xx redirects included), ` +
      `RSS ${startRss.toFixed(1)} -> ${endRss.toFixed(1)} MB (max ${maxRss.toFixed(1)})` +
      (perRequestSession ? `, ${session} sessions` : ''),
  )
  return { errors: result.errors + result.timeouts + counts.unexpected }
}

try {
  const one = await phase('one session', false)
  const many = await phase('a new session per request', true)
  const failures = one.errors + many.errors
  console.log(failures === 0 ? '\nsoak: no errors' : `\nsoak: ${failures} errors or unexpected statuses`)
  stopServer()
  process.exit(failures === 0 ? 0 : 1)
} catch (error) {
  console.error(error)
  stopServer()
  process.exit(1)
}
