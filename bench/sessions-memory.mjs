/**
 * Memory of per-session state on the listener (issue 20): `startMockServer` (from `dist/`) on the
 * bundled mocks' options (mocks/config.js), in a child process, driven by autocannon with the same requests in two runs, each in a fresh
 * server process: without a session header, then with a new `x-mockyard-session` per request
 * (`sessions.limit` at its default, 1,000). Prints the server's RSS at start, at the end and at
 * its highest, the growth of each run (the sessions' cost is the second growth minus the first),
 * and the heap after `gc()` before and after the load (what is still held).
 *
 *   npm run build && npx node bench/sessions-memory.mjs                  # 2 x 30 s, sequences only
 *   npx node bench/sessions-memory.mjs --seconds 120 --mix all            # the length; notifications too
 *
 * `--mix sequences` (default): a sequence (which keeps a position per session), a plain file,
 * query and header scoring, a JSON body: what a session that only advances sequences costs.
 * `--mix all` adds the notifications list and a `PATCH` of one notification (the session's own
 * changes to the store). Bounded in time; prints figures, asserts nothing.
 */
import { fork } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'

if (process.argv[2] === '--child') {
  // The listener: the bundled mocks' options (routes, data, notifications handlers), as the CLI loads them.
  const root = fileURLToPath(new URL('../', import.meta.url))
  const { startMockServer } = await import('../dist/node/index.js')
  const config = (await import('../mocks/config.js')).default
  const quiet = () => ({ log() {}, debug() {}, info() {}, warn() {}, error: console.error })
  const server = await startMockServer({ ...config, routes: join(root, 'mocks', config.routes), data: join(root, 'mocks', config.data), latency: 0, watch: false, port: 0, host: '127.0.0.1', logProvider: quiet })
  process.on('message', (message) => {
    if (message === 'memory') {
      globalThis.gc()
      const { rss, heapUsed } = process.memoryUsage()
      process.send({ rss, heapUsed })
    }
  })
  process.on('disconnect', () => process.exit(0))
  process.send({ url: server.url })
  await new Promise(() => {})
}

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    connections: { type: 'string', default: '10' },
    mix: { type: 'string', default: 'sequences' },
  },
})
const seconds = Number(values.seconds)
const connections = Number(values.connections)
if (!(seconds > 0) || !(connections > 0) || !['sequences', 'all'].includes(values.mix)) {
  console.error('usage: node bench/sessions-memory.mjs [--seconds 30] [--connections 10] [--mix sequences|all]')
  process.exit(2)
}
setTimeout(() => {
  console.error('sessions-memory: time is up')
  process.exit(3)
}, (2 * seconds + 60) * 1000).unref()

const root = fileURLToPath(new URL('../', import.meta.url))
const requests = [
  { method: 'GET', path: '/v1/jobs/42' },
  { method: 'GET', path: '/v1/jobs/42' },
  { method: 'GET', path: '/v1/users' },
  { method: 'GET', path: '/v1/claims?status=open&owner=me' },
  { method: 'GET', path: '/v1/profile', headers: { 'x-role': 'admin' } },
  { method: 'POST', path: '/v1/payments', headers: { 'content-type': 'application/json' }, body: '{"method":{"type":"card"}}' },
  ...(values.mix === 'all'
    ? [
        { method: 'GET', path: '/api/v1/notifications?limit=5' },
        { method: 'PATCH', path: '/api/v1/notifications/read-1', headers: { 'content-type': 'application/json' }, body: '{"viewed":true}' },
      ]
    : []),
]

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024

async function run(name, perRequestSession) {
  const server = fork(fileURLToPath(import.meta.url), ['--child'], { execArgv: ['--expose-gc'], stdio: 'inherit' })
  const memory = () =>
    new Promise((resolve) => {
      server.once('message', resolve)
      server.send('memory')
    })
  try {
    const { url } = await new Promise((resolve, reject) => {
      server.once('message', resolve)
      server.once('exit', (code) => reject(new Error(`the listener exited with ${code} before listening (run npm run build first)`)))
    })
    const heapAtStart = (await memory()).heapUsed
    let session = 0
    let unexpected = 0
    const start = rssMb(server.pid)
    let max = start
    const sampler = setInterval(() => (max = Math.max(max, rssMb(server.pid))), 1000)
    const result = await autocannon({
      url,
      connections,
      duration: seconds,
      requests: requests.map((request) => ({
        ...request,
        setupRequest: perRequestSession ? (req) => ({ ...req, headers: { ...req.headers, 'x-mockyard-session': `s-${++session}` } }) : (req) => req,
      })),
    }).on('response', (_client, status) => {
      if (status >= 400) unexpected++
    })
    clearInterval(sampler)
    const end = rssMb(server.pid)
    max = Math.max(max, end)
    const heapAtEnd = (await memory()).heapUsed
    console.log(
      `${name.padEnd(26)} ${String(result.requests.total).padStart(8)} requests ${String(session).padStart(8)} sessions   RSS ${start.toFixed(1)} -> ${end.toFixed(1)} MB (max ${max.toFixed(1)}): +${(max - start).toFixed(1)} MB   heap after gc ${(heapAtStart / 2 ** 20).toFixed(1)} -> ${(heapAtEnd / 2 ** 20).toFixed(1)} MB` +
        (unexpected + result.errors > 0 ? `   ${unexpected} statuses >= 400, ${result.errors} errors` : ''),
    )
    return max - start
  } finally {
    server.kill()
    await new Promise((resolve) => (server.exitCode !== null ? resolve() : server.once('exit', resolve)))
  }
}

console.log(`sessions on the listener: ${connections} connections, ${seconds} s per run, mix "${values.mix}", sessions.limit 1,000`)
const without = await run('no session header', false)
const withSessions = await run('a new session per request', true)
console.log(`cost of the sessions: ${(withSessions - without).toFixed(1)} MB more growth than the same load without them`)
