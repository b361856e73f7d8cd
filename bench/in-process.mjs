/**
 * In-process interception benchmark: N sequential requests to http://example.test/ping, answered
 * with {"ok":true} by one msw handler, through several interception mechanisms.
 *
 *   npx node bench/in-process.mjs                  all cases, 20,000 requests each
 *   npx node bench/in-process.mjs --count 5000 mockyard-fetch msw3-fetch
 *   (children: bench/in-process.mjs --child <case> <count>, with MOCKYARD_BENCH_INTERNALS set by the parent)
 *
 * Each case runs in its own child process (`--expose-gc`) so that cases do not pollute each
 * other. Heap growth: heapUsed after gc() following the measured requests minus heapUsed after
 * gc() before them (a short warm-up runs first), divided by the request count; "after close"
 * measures again once the interception is disposed (msw: server.close()).
 *
 * Requests never leave the process: every request is answered by the mock.
 * mockyard's internal modules (startInterception, createInstance, interceptInstance: not exported
 * by the package) come from the sources, bundled by bench/internals.mjs the way the build does.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const URL_PING = 'http://example.test/ping'
const WARMUP = 200
const DEFAULT_COUNT = 20_000

/** name -> [description, function (count) => measurement] */
const CASES = {
  'getresponse': ['(a) msw 3 getResponse() directly (baseline)', directCase('msw')],
  'mockyard-fetch': ['(b) startInterception + msw 3 getResponse, fetch', mockyardCase('msw', 'fetch')],
  'mockyard-http': ['(b) startInterception + msw 3 getResponse, http.get', mockyardCase('msw', 'http')],
  'mockyard-fetch-msw2': ['(b) startInterception + msw 2 getResponse, fetch', mockyardCase('msw2', 'fetch')],
  'instance-fetch': ['(e) setupMockServer path (routes), fetch', instanceCase('fetch')],
  'instance-http': ['(e) setupMockServer path (routes), http.get', instanceCase('http')],
  'msw3-fetch': ['(c) msw 3 setupServer, fetch', setupServerCase('msw', 'fetch')],
  'msw3-http': ['(c) msw 3 setupServer, http.get', setupServerCase('msw', 'http')],
  'msw2-fetch': ['(d) msw 2 setupServer, fetch', setupServerCase('msw2', 'fetch')],
  'msw2-http': ['(d) msw 2 setupServer, http.get', setupServerCase('msw2', 'http')],
  'mockyard-fetch-static': ['    startInterception alone (resolve returns Response.json), fetch', staticCase()],
  'interceptors041-fetch': ['    @mswjs/interceptors 0.41 alone, fetch', interceptorsCase('0.41')],
  'interceptors045-fetch': ['    @mswjs/interceptors 0.45 alone (msw 3\'s), fetch', interceptorsCase('0.45')],
}

/** The internals, bundled once by the parent process and named to each child in MOCKYARD_BENCH_INTERNALS. */
function internals() {
  const url = process.env.MOCKYARD_BENCH_INTERNALS
  if (!url) throw new Error('run cases through runCaseInChild() (or the script without --child): it bundles the internals first')
  return import(url)
}

// ---------------------------------------------------------------------------------------------
// Requests

async function viaFetch() {
  const response = await fetch(URL_PING)
  const body = await response.json()
  if (body.ok !== true) throw new Error(`unexpected body ${JSON.stringify(body)}`)
}

function viaHttpGet() {
  return new Promise((resolve, reject) => {
    http
      .get(URL_PING, (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk) => (text += chunk))
        response.on('end', () => {
          if (text !== '{"ok":true}') reject(new Error(`unexpected body ${text}`))
          else resolve()
        })
        response.on('error', reject)
      })
      .on('error', reject)
  })
}

async function handlersOf(pkg) {
  const { http: rest, HttpResponse, getResponse } = await import(pkg)
  return { handlers: [rest.get('*/ping', () => HttpResponse.json({ ok: true }))], getResponse }
}

// ---------------------------------------------------------------------------------------------
// Cases: each returns { start(), request(), stop() }

function directCase(pkg) {
  return async () => {
    const { handlers, getResponse } = await handlersOf(pkg)
    return {
      async request() {
        const response = await getResponse(handlers, new Request(URL_PING))
        const body = await response.json()
        if (body.ok !== true) throw new Error('unexpected body')
      },
      stop() {},
    }
  }
}

function mockyardCase(pkg, client) {
  return async () => {
    const { handlers, getResponse } = await handlersOf(pkg)
    const { startInterception } = await internals()
    const interception = startInterception({ resolve: (request) => getResponse(handlers, request), strategy: 'error' })
    return { request: client === 'fetch' ? viaFetch : viaHttpGet, stop: () => interception.dispose() }
  }
}

/**
 * What `setupMockServer()` (mockyard/vitest) runs: a loaded instance whose routes answer GET /ping
 * with a `{"ok":true}` data file, intercepted by `interceptInstance()` (from the sources, bundled:
 * see internals()). The request log keeps its default bound (1,000 records): it grows during the first
 * 1,000 requests, then stays flat.
 */
function instanceCase(client) {
  return async () => {
    const { createInstance, interceptInstance } = await internals()
    const folder = mkdtempSync(join(tmpdir(), 'mockyard-in-process-'))
    writeFileSync(join(folder, 'ping.json'), '{"ok":true}')
    writeFileSync(join(folder, 'routes.json'), JSON.stringify({ ping: { file: 'ping.json' } }))
    const instance = await createInstance({ routes: join(folder, 'routes.json'), data: folder }, { latency: 0, watch: false, logLevel: 'error' })
    const interception = interceptInstance(instance)
    return {
      request: client === 'fetch' ? viaFetch : viaHttpGet,
      async stop() {
        interception.dispose()
        await instance.close()
        rmSync(folder, { recursive: true, force: true })
      },
    }
  }
}

function setupServerCase(pkg, client) {
  return async () => {
    const { handlers } = await handlersOf(pkg)
    const { setupServer } = await import(`${pkg}/node`)
    const server = setupServer(...handlers)
    server.listen({ onUnhandledRequest: 'error' })
    return { request: client === 'fetch' ? viaFetch : viaHttpGet, stop: () => server.close() }
  }
}

/** The interception's own cost: resolve() answers every request with a fresh `Response.json()`. */
function staticCase() {
  return async () => {
    const { startInterception } = await internals()
    const interception = startInterception({ resolve: async () => Response.json({ ok: true }), strategy: 'error' })
    return { request: viaFetch, stop: () => interception.dispose() }
  }
}

function interceptorsCase(version) {
  return async () => {
    const { FetchInterceptor } = await import(
      version === '0.41'
        ? '@mswjs/interceptors/fetch'
        : new URL('../node_modules/msw/node_modules/@mswjs/interceptors/lib/node/interceptors/fetch/node.js', import.meta.url).href
    )
    const interceptor = new FetchInterceptor()
    interceptor.apply()
    interceptor.on('request', ({ controller }) => controller.respondWith(Response.json({ ok: true })))
    return { request: viaFetch, stop: () => interceptor.dispose() }
  }
}

// ---------------------------------------------------------------------------------------------
// Child: one case

async function settledHeap() {
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    globalThis.gc()
  }
  return process.memoryUsage().heapUsed
}

async function runChild(name, count) {
  if (typeof globalThis.gc !== 'function') throw new Error('run the child with --expose-gc')
  const entry = CASES[name]
  if (!entry) throw new Error(`unknown case ${name}; cases: ${Object.keys(CASES).join(', ')}`)
  const subject = await entry[1]()
  for (let i = 0; i < WARMUP; i++) await subject.request()
  const heapBefore = await settledHeap()
  const started = performance.now()
  for (let i = 0; i < count; i++) await subject.request()
  const elapsed = performance.now() - started
  const heapAfter = await settledHeap()
  await subject.stop()
  const heapAfterClose = await settledHeap()
  return {
    case: name,
    count,
    ms: elapsed,
    perSecond: (count / elapsed) * 1000,
    heapBefore,
    heapAfter,
    heapAfterClose,
    kbPerRequest: (heapAfter - heapBefore) / 1024 / count,
    kbPerRequestAfterClose: (heapAfterClose - heapBefore) / 1024 / count,
  }
}

// ---------------------------------------------------------------------------------------------
// Parent: every case in its own process

const script = fileURLToPath(import.meta.url)

/** Runs one case in a child process (`--expose-gc`) and returns its measurement. */
export async function runCaseInChild(name, count) {
  const { buildInternals } = await import('./internals.mjs')
  const env = { ...process.env, MOCKYARD_BENCH_INTERNALS: await buildInternals() }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--no-warnings', script, '--child', name, String(count)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      const line = stdout.trim().split('\n').pop()
      if (code !== 0 || !line) reject(new Error(`case ${name} exited with ${code}\n${stderr}`))
      else resolve(JSON.parse(line))
    })
  })
}

function table(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
  return rows
    .map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  '))
    .join('\n')
}

async function runAll(names, count) {
  console.log(`${count} sequential requests per case, Node ${process.version}, each case in its own process\n`)
  const results = []
  for (const name of names) {
    process.stderr.write(`running ${name}...\n`)
    results.push(await runCaseInChild(name, count))
  }
  const baseline = results.find((r) => r.case === 'getresponse')
  const rows = [['case', 'req/s', 'vs (a)', 'heap KB/req', 'after close KB/req']]
  for (const r of results) {
    rows.push([
      CASES[r.case][0],
      Math.round(r.perSecond).toLocaleString('en-US'),
      baseline ? `${(r.perSecond / baseline.perSecond).toFixed(2)}x` : '-',
      r.kbPerRequest.toFixed(2),
      r.kbPerRequestAfterClose.toFixed(2),
    ])
  }
  console.log(table(rows))
}

const args = process.argv.slice(2)
if (args[0] === '--child') {
  const result = await runChild(args[1], Number(args[2] ?? DEFAULT_COUNT))
  process.stdout.write(`${JSON.stringify(result)}\n`)
  process.exit(0)
} else if (process.argv[1] === script) {
  let count = DEFAULT_COUNT
  const names = []
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--count') count = Number(args[++i])
    else names.push(args[i])
  }
  await runAll(names.length > 0 ? names : Object.keys(CASES), count)
}
