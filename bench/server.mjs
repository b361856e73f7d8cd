/**
 * One benchmark server in its own process (started by bench/run.mjs with an IPC channel):
 *
 *   node bench/server.mjs <bare|mockyard|availity> <fixtures dir> <workload id>
 *
 * Listens on 127.0.0.1 (random port) and reports `{ type: 'ready', port }`. Answers
 * `{ type: 'stats' }` with its `process.cpuUsage()` and memory, and exits on `{ type: 'stop' }`,
 * when the IPC channel closes (the parent exited) or after a bounded lifetime.
 */
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const [kind, dir, workloadId] = process.argv.slice(2)
const MAX_LIFETIME_MS = 30 * 60 * 1000
const HOST = '127.0.0.1'

if (!process.send) {
  console.error('bench/server.mjs runs as a child of bench/run.mjs (it needs an IPC channel)')
  process.exit(2)
}

const exit = (code = 0) => process.exit(code)
process.on('disconnect', () => exit(0))
setTimeout(() => exit(3), MAX_LIFETIME_MS).unref()

const workloads = JSON.parse(readFileSync(join(dir, 'workloads.json'), 'utf8'))
const workload = workloads[workloadId]
if (!workload) {
  console.error(`unknown workload ${workloadId}`)
  exit(2)
}

/**
 * The limit: node:http sending bytes from memory with the same content type. For the routes
 * workloads (W4) it maps each route's path to its file (read once, then kept); otherwise every
 * request gets the expected bytes. Request bodies are read (not parsed) so keep-alive works.
 */
async function startBare() {
  const type = workload.contentType
  let answer
  if (workload.bareRoutes) {
    const routes = JSON.parse(readFileSync(workload.routes.mockyard, 'utf8'))
    const files = new Map()
    for (const [key, route] of Object.entries(routes)) files.set(`/${key}`, route.file)
    const cache = new Map()
    answer = (url) => {
      const query = url.indexOf('?')
      const path = query === -1 ? url : url.slice(0, query)
      let bytes = cache.get(path)
      if (bytes === undefined) {
        const file = files.get(path)
        if (file === undefined) return undefined
        bytes = readFileSync(join(workload.data, file))
        cache.set(path, bytes)
      }
      return bytes
    }
  } else {
    const bytes = readFileSync(workload.expected)
    answer = () => bytes
  }
  const send = (req, res) => {
    const bytes = answer(req.url)
    if (bytes === undefined) {
      res.writeHead(404, { 'content-type': type, 'content-length': 2 })
      res.end('{}')
      return
    }
    res.writeHead(200, { 'content-type': type, 'content-length': bytes.length })
    res.end(bytes)
  }
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD') send(req, res)
    else {
      req.on('data', () => undefined)
      req.on('end', () => send(req, res))
    }
  })
  server.keepAliveTimeout = 5000
  await new Promise((resolve) => server.listen(0, HOST, resolve))
  return server.address().port
}

async function startMockyard() {
  return startMockyardFrom(new URL('../dist/', import.meta.url))
}

/** `--baseline DIR`: the same server from another build (a `dist/` of the commit before a change). */
async function startBaseline() {
  return startMockyardFrom(pathToFileURL(process.env.MOCKYARD_BASELINE_DIST.replace(/\/*$/, '/')))
}

async function startMockyardFrom(dist) {
  const { startMockServer } = await import(new URL('node/index.js', dist).href)
  const server = await startMockServer({ routes: workload.routes.mockyard, data: workload.data, latency: 0 })
  return server.port
}

async function startAvaility() {
  // NODE_ENV=testing (set by the parent) is the package's own switch for a silent logger.
  const { default: MockServer } = await import('@availity/mock-server')
  const silent = () => ({ log() {}, debug() {}, info() {}, warn() {}, error() {} })
  const server = new MockServer()
  await server.start({ routes: workload.routes.availity, data: workload.data, port: 0, host: HOST, logProvider: silent })
  return server.config().server.address().port
}

const starters = { bare: startBare, mockyard: startMockyard, baseline: startBaseline, availity: startAvaility }

process.on('message', (message) => {
  if (message?.type === 'stats') {
    const memory = process.memoryUsage()
    process.send({ type: 'stats', cpu: process.cpuUsage(), rss: memory.rss, heapUsed: memory.heapUsed })
  } else if (message?.type === 'stop') {
    exit(0)
  }
})

try {
  const start = starters[kind]
  if (!start) throw new Error(`unknown server kind ${kind}`)
  const port = await start()
  process.send({ type: 'ready', port })
} catch (error) {
  process.send({ type: 'failed', error: String(error?.stack ?? error) })
  setTimeout(() => exit(1), 50)
}
