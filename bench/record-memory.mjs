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
 *
 * With `--large`, it measures single large answers instead: a 300 MB answer and a 256 MB gzip
 * bomb (256 MB of zeros, about 250 KB compressed), each through the recorder and, as the
 * baseline, through a bare node:http pass-through proxy (what forwarding alone costs). Each runs
 * in a child process of its own that samples its RSS every 10 ms; the table shows the RSS before
 * the request, the peak and the growth, and what the recorder wrote.
 *
 *   npx node bench/record-memory.mjs --large
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createGzip } from 'node:zlib'
import { startRecorder } from '../dist/node/index.js'

const args = process.argv.slice(2)
if (args[0] === '--child') await child(args[1], args[2])
else if (args.includes('--large')) await large()
else await session()

async function session() {
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
}

/** One child: a recorder (or a bare pass-through proxy) in front of `target`, reporting its RSS. */
async function child(kind, target) {
  let peak = process.memoryUsage.rss()
  const start = peak
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10)
  let url
  let recorder
  let out
  const lines = []
  if (kind === 'recorder') {
    out = mkdtempSync(join(tmpdir(), 'mockyard-record-large-'))
    recorder = await startRecorder({ target, out, port: 0, onRecord: (line) => lines.push(line) })
    url = recorder.url
  } else {
    const proxy = http.createServer((req, res) => {
      const upstream = http.request(target + req.url, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode, answer.headers)
        answer.pipe(res)
      })
      req.pipe(upstream)
    })
    await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${proxy.address().port}`
  }
  process.stdout.write(JSON.stringify({ url }) + '\n')
  process.stdin.once('data', async () => {
    if (recorder) await recorder.stop()
    clearInterval(sampler)
    peak = Math.max(peak, process.memoryUsage.rss())
    let written = ''
    if (out) {
      const files = readdirSync(join(out, 'data')).map((name) => `${name} ${(statSync(join(out, 'data', name)).size / 1024 / 1024).toFixed(0)} MB`)
      written = `${files.length === 0 ? 'no data file' : files.join(', ')}; ${lines.join('; ')}`
      rmSync(out, { recursive: true, force: true })
    }
    process.stdout.write(JSON.stringify({ start, peak, written }) + '\n')
    process.exit(0)
  })
}

/** The large-answer cases: each server in a child of its own, back end and client here. */
async function large() {
  const MB = 1024 * 1024
  const zeros = Buffer.alloc(MB)
  // The bomb, compressed once: 256 MB of zeros.
  const bomb = await new Promise((resolve) => {
    const parts = []
    const gzip = createGzip({ level: 9 })
    gzip.on('data', (chunk) => parts.push(chunk))
    gzip.on('end', () => resolve(Buffer.concat(parts)))
    for (let i = 0; i < 256; i++) gzip.write(zeros)
    gzip.end()
  })
  const backEnd = http.createServer((req, res) => {
    if (req.url === '/bomb') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length })
      return res.end(bomb)
    }
    // 300 MB, written as the client takes it.
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': 300 * MB })
    let left = 300
    const pump = () => {
      while (left > 0) {
        left--
        if (!res.write(zeros)) return void res.once('drain', pump)
      }
      res.end()
    }
    pump()
  })
  await new Promise((resolve) => backEnd.listen(0, '127.0.0.1', resolve))
  const target = `http://127.0.0.1:${backEnd.address().port}`
  const cases = [
    ['300 MB answer', '/big'],
    [`256 MB gzip bomb (${(bomb.length / 1024).toFixed(0)} KB compressed)`, '/bomb'],
  ]
  const mb = (bytes) => `${(bytes / MB).toFixed(0)} MB`
  console.log('case                                  server     rss before  peak     growth   written')
  for (const [name, path] of cases) {
    for (const kind of ['bare', 'recorder']) {
      const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', kind, target], { stdio: ['pipe', 'pipe', 'inherit'] })
      const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]()
      const { url } = JSON.parse((await lines.next()).value)
      await new Promise((resolve, reject) => {
        http.get(url + path, (res) => {
          res.resume()
          res.on('end', resolve)
        }).on('error', reject)
      })
      proc.stdin.write('report\n')
      const { start, peak, written } = JSON.parse((await lines.next()).value)
      console.log(`${name.padEnd(38)}${kind.padEnd(11)}${mb(start).padStart(10)}  ${mb(peak).padStart(7)}  ${mb(peak - start).padStart(7)}   ${written}`)
    }
  }
  backEnd.close()
}
