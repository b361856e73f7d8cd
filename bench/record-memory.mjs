/**
 * Memory of `mockyard record` over a long session: records N requests (default 10,000) against
 * a local node:http back end and prints RSS and heap every 1,000 requests. The figures should
 * stay flat: the recorder keeps no request or body once it is written, only one small record
 * per distinct request (bounded per route) and a hash per distinct body.
 *
 *   npm run build && npx node --expose-gc bench/record-memory.mjs
 *   npx node --expose-gc bench/record-memory.mjs --count 20000
 *
 * The traffic mixes what an app sends: 50 GET paths each with 4 query variants (cache-busting
 * `_` parameter included, which the recorder leaves out of `params`), JSON POSTs told apart by a
 * body field, a binary download, and a polling endpoint that answers 202 twice then 201. The
 * recording goes to a temporary folder, deleted at the end. Loads mockyard from `dist/`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startRecorder } from '../dist/node/index.js'

const args = process.argv.slice(2)
const countAt = args.indexOf('--count')
const COUNT = countAt === -1 ? 10_000 : Number(args[countAt + 1])
const EVERY = 1_000
const BINARY = Buffer.alloc(4096, 7)

let polls = 0
const backEnd = http.createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const url = new URL(req.url, 'http://x')
    if (url.pathname === '/download') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      return res.end(BINARY)
    }
    if (url.pathname === '/job') {
      polls++
      const status = polls % 3 === 0 ? 201 : 202
      res.writeHead(status, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ state: status === 201 ? 'done' : 'running' }))
    }
    if (req.method === 'POST') {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}')
      res.writeHead(201, { 'content-type': 'application/json', 'x-trace': 'same' })
      return res.end(JSON.stringify({ created: body.kind, padding: 'x'.repeat(512) }))
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ path: url.pathname, page: url.searchParams.get('page'), items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) }))
  })
})
await new Promise((resolve) => backEnd.listen(0, '127.0.0.1', resolve))
const target = `http://127.0.0.1:${backEnd.address().port}`

const out = mkdtempSync(join(tmpdir(), 'mockyard-record-bench-'))
const recorder = await startRecorder({ target, out, port: 0 })
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })

function send(i) {
  let method = 'GET'
  let path
  let body = null
  const kind = i % 10
  if (kind < 7) path = `/api/resource-${i % 50}?page=${i % 4}&_=${i}`
  else if (kind === 7) {
    method = 'POST'
    path = `/api/events`
    body = JSON.stringify({ kind: `k${i % 5}`, at: i })
  } else if (kind === 8) path = '/download'
  else path = '/job'
  return new Promise((resolve, reject) => {
    const req = http.request(`${recorder.url}${path}`, { method, agent, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      res.resume()
      res.on('end', resolve)
    })
    req.on('error', reject)
    req.end(body ?? undefined)
  })
}

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1).padStart(6)
const sample = (done) => {
  globalThis.gc?.()
  const { rss, heapUsed } = process.memoryUsage()
  console.log(`${String(done).padStart(6)} requests   rss ${mb(rss)} MB   heap ${mb(heapUsed)} MB`)
}
if (!globalThis.gc) console.log('(run with node --expose-gc for heap figures after a collection)')
sample(0)
const CONCURRENCY = 4
for (let done = 0; done < COUNT; ) {
  const batch = []
  for (let k = 0; k < CONCURRENCY && done < COUNT; k++, done++) batch.push(send(done))
  await Promise.all(batch)
  if (done % EVERY === 0) sample(done)
}
const summary = await recorder.stop()
agent.destroy()
backEnd.close()
const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
console.log(`recorded: ${summary.requests} requests, ${summary.routes} routes, ${summary.entries} entries, ${summary.files} files (${readdirSync(join(out, 'data')).length} in data/), ${Object.keys(routes).length} keys in routes.json`)
rmSync(out, { recursive: true, force: true })
