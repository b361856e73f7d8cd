/**
 * File descriptors and memory of the forwarding CLIs (`mockyard record --target`, `mockyard
 * --proxy`) under a loop and a large stream, each next to a baseline measured in the same run:
 *
 * 1. Loop: `record` A targets `mockyard --proxy` B, whose proxy target is A. N requests (default
 *    200, 20 at a time) go to A; each is forwarded once to B, once back to A, and answered 508
 *    there. Baseline: the same requests through a `record` in front of a plain back end.
 * 2. Stream: a back end sends a body of S MB (default 500) through `mockyard --proxy`; the
 *    proxy's peak RSS against its RSS before the stream.
 *
 *   npm run build && npx node bench/forward-loop.mjs
 *   npx node bench/forward-loop.mjs --requests 500 --stream-mb 200
 *
 * Figures are read from /proc (Linux): open fds, VmRSS and VmHWM (peak RSS) of the CLI processes.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))
const args = process.argv.slice(2)
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback)
const REQUESTS = option('--requests', 200)
const STREAM_MB = option('--stream-mb', 500)
const dir = mkdtempSync(join(tmpdir(), 'mockyard-forward-loop-'))
writeFileSync(join(dir, 'routes.json'), '{}')

const children = []
function startCli(cliArgs) {
  const child = spawn(process.execPath, [CLI, ...cliArgs], { stdio: ['ignore', 'pipe', 'ignore'] })
  children.push(child)
  return new Promise((resolve, reject) => {
    let out = ''
    child.once('exit', (code) => reject(new Error(`mockyard ${cliArgs.join(' ')} exited with ${code}`)))
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /listening on http:\/\/\S+:(\d+)/.exec(out)
      if (match) resolve({ child, url: `http://127.0.0.1:${match[1]}` })
    })
  })
}

async function freePort() {
  const probe = http.createServer()
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address()
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** Open fds, RSS and peak RSS (MB) of a process. */
function figures(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)[1])
  return { fds: readdirSync(`/proc/${pid}/fd`).length, rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) }
}

/** N GETs, `concurrency` at a time; the count of each status. */
async function load(url, n, concurrency = 20) {
  const statuses = {}
  let next = 0
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  const one = () =>
    new Promise((resolve) => {
      const req = http.get(`${url}/api/items/${next}`, { agent }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
      })
      req.on('error', () => resolve('error'))
    })
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++
        const status = await one()
        statuses[status] = (statuses[status] ?? 0) + 1
      }
    }),
  )
  agent.destroy()
  return statuses
}

const backEnd = http.createServer((req, res) => {
  req.resume()
  if (req.url === '/stream') {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': STREAM_MB * 1024 * 1024 })
    const chunk = Buffer.alloc(1024 * 1024, 7)
    let sent = 0
    const write = () => {
      while (sent < STREAM_MB) {
        sent++
        if (!res.write(chunk)) return res.once('drain', write)
      }
      res.end()
    }
    return write()
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
})
await new Promise((resolve) => backEnd.listen(0, '127.0.0.1', resolve))
const backEndUrl = `http://127.0.0.1:${backEnd.address().port}`

try {
  // 1. Loop against a baseline.
  const baseline = await startCli(['record', '--target', backEndUrl, '--out', join(dir, 'baseline'), '--port', '0'])
  const baselineStatuses = await load(baseline.url, REQUESTS)
  const proxyPort = await freePort()
  const recorder = await startCli(['record', '--target', `http://127.0.0.1:${proxyPort}`, '--out', join(dir, 'loop'), '--port', '0'])
  const proxy = await startCli(['--routes', join(dir, 'routes.json'), '--proxy', recorder.url, '--port', String(proxyPort), '--host', '127.0.0.1', '--latency', '0', '--no-watch', '--log', 'silent'])
  const loopStatuses = await load(recorder.url, REQUESTS)
  console.log(`Loop, ${REQUESTS} requests (20 at a time)`)
  console.log('| process | answers | open fds | RSS MB | peak RSS MB |')
  console.log('| --- | --- | --- | --- | --- |')
  const row = (name, child, statuses) => {
    const f = figures(child.pid)
    console.log(`| ${name} | ${JSON.stringify(statuses)} | ${f.fds} | ${f.rssMb} | ${f.peakMb} |`)
  }
  row('baseline: record -> back end', baseline.child, baselineStatuses)
  row('loop: record -> --proxy -> record', recorder.child, loopStatuses)
  row('loop: the --proxy in the middle', proxy.child, loopStatuses)

  // 2. A large stream through --proxy.
  const streaming = await startCli(['--routes', join(dir, 'routes.json'), '--proxy', backEndUrl, '--port', '0', '--host', '127.0.0.1', '--latency', '0', '--no-watch', '--log', 'silent'])
  const before = figures(streaming.child.pid)
  let bytes = 0
  await new Promise((resolve, reject) => {
    http.get(`${streaming.url}/stream`, (res) => {
      res.on('data', (chunk) => (bytes += chunk.length))
      res.on('end', resolve)
      res.on('error', reject)
    })
  })
  const after = figures(streaming.child.pid)
  console.log(`\nStream of ${STREAM_MB} MB through --proxy (${Math.round(bytes / 1024 / 1024)} MB received)`)
  console.log('| --proxy | RSS MB | peak RSS MB |')
  console.log('| --- | --- | --- |')
  console.log(`| before the stream (baseline) | ${before.rssMb} | ${before.peakMb} |`)
  console.log(`| after the stream | ${after.rssMb} | ${after.peakMb} |`)
} finally {
  for (const child of children) child.kill('SIGKILL')
  backEnd.close()
  backEnd.closeAllConnections()
  rmSync(dir, { recursive: true, force: true })
}
