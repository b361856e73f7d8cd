/**
 * Choosing an entry, in process: the engine's cost per request for the W2 and W3 route tables
 * (bench/fixtures.mjs) with the literal index the compiler builds, against the same table with
 * the index taken out (every entry scored), in one process, interleaved rounds, medians. The
 * HTTP figures of `npm run bench` are this plus the server's fixed cost per request; on a busy
 * machine this ratio is the steadier one.
 *
 *   npm run build && npx node bench/choosing.mjs [--rounds 7] [--requests 20000]
 */
import { compileRoutes, createEngine, memoryFiles } from '../dist/core/index.js'

const args = process.argv.slice(2)
const flag = (name, fallback) => {
  const at = args.indexOf(name)
  return at >= 0 ? Number(args[at + 1]) : fallback
}
const rounds = flag('--rounds', 7)
const requests = flag('--requests', 20000)

const files = memoryFiles({ 'match.json': '{"match":true}', 'other.json': '{"match":false}' })
const workloads = {
  W2: {
    routes: {
      'v1/claims': {
        file: 'other.json',
        get: Array.from({ length: 50 }, (_, index) => ({
          file: index + 1 === 37 ? 'match.json' : 'other.json',
          params: { status: 'open', payerId: `P${index + 1}`, page: '1' },
        })),
      },
    },
    request: { method: 'GET', url: 'http://127.0.0.1/v1/claims?status=open&payerId=P37&page=1', body: null },
  },
  W3: {
    routes: {
      'v1/claims/search': {
        file: 'other.json',
        post: Array.from({ length: 20 }, (_, index) => ({
          file: index + 1 === 15 ? 'match.json' : 'other.json',
          params: { 'member.address.state': `S${index + 1}`, 'claim.type': 'medical' },
        })),
      },
    },
    request: {
      method: 'POST',
      url: 'http://127.0.0.1/v1/claims/search',
      body: new TextEncoder().encode(
        JSON.stringify({
          member: { id: 'M0001', name: 'Pat Doe', address: { street: '1 Main St', city: 'Springfield', state: 'S15', zip: '12345' } },
          claim: { type: 'medical', amount: 120, lines: [{ code: '99213', units: 1 }, { code: '85025', units: 2 }] },
        }),
      ),
    },
  },
}

const headers = new Headers({ 'content-type': 'application/json' })

/** An engine over the workload's table; `scan`: with every method's index taken out. */
function engineOf(workload, scan) {
  const table = compileRoutes([{ file: 'routes.json', routes: workload.routes, files }])
  if (scan) {
    for (const route of table.routes) {
      for (const [method, compiled] of route.methods) route.methods.set(method, { default: compiled.default, conditionals: compiled.conditionals })
    }
  }
  return createEngine(table, { cors: false })
}

/** Nanoseconds per request over `requests` calls of `engine.handle` (all answered at once). */
function measure(engine, request) {
  const engineRequest = { method: request.method, url: request.url, headers, body: () => request.body }
  let matched = 0
  const start = process.hrtime.bigint()
  for (let i = 0; i < requests; i++) {
    const result = engine.handle(engineRequest)
    if (result.matched && result.response.status === 200) matched++
  }
  const ns = Number(process.hrtime.bigint() - start) / requests
  if (matched !== requests) throw new Error(`expected every request answered with 200, got ${matched} of ${requests}`)
  return ns
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

console.log(`choosing an entry in process — Node ${process.version}, ${rounds} interleaved rounds of ${requests} requests, medians`)
console.log('workload  scan ns/req  index ns/req  index/scan  spread (scan, index)')
for (const [id, workload] of Object.entries(workloads)) {
  const scan = engineOf(workload, true)
  const indexed = engineOf(workload, false)
  // Both answer the same entry (the check the seeded test makes over generated configs).
  const a = scan.handle({ ...workload.request, headers, body: () => workload.request.body })
  const b = indexed.handle({ ...workload.request, headers, body: () => workload.request.body })
  if (a.info.entry !== b.info.entry) throw new Error(`${id}: the index answered ${b.info.entry}, the scan ${a.info.entry}`)
  measure(scan, workload.request)
  measure(indexed, workload.request)
  const times = { scan: [], index: [] }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['scan', 'index'] : ['index', 'scan']
    for (const which of order) times[which].push(measure(which === 'scan' ? scan : indexed, workload.request))
  }
  const spread = (list) => `${Math.round(((Math.max(...list) - Math.min(...list)) / median(list)) * 100)}%`
  const s = median(times.scan)
  const i = median(times.index)
  console.log(`${id.padEnd(8)}  ${s.toFixed(0).padStart(11)}  ${i.toFixed(0).padStart(12)}  ${(i / s).toFixed(2).padStart(9)}x  ${spread(times.scan)}, ${spread(times.index)}`)
}
