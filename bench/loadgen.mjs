/**
 * The load generator in its own process (started by bench/run.mjs with an IPC channel, pinned
 * to the other core): autocannon warm-up, then `{ type: 'warm' }`, wait for `{ type: 'go' }`,
 * then the measured run, reported as `{ type: 'result', ... }`.
 *
 *   node bench/loadgen.mjs '<json: { url, method, headers, body, connections, warmup, duration }>'
 */
import autocannon from 'autocannon'

const MAX_LIFETIME_MS = 10 * 60 * 1000

if (!process.send) {
  console.error('bench/loadgen.mjs runs as a child of bench/run.mjs (it needs an IPC channel)')
  process.exit(2)
}
process.on('disconnect', () => process.exit(0))
setTimeout(() => process.exit(3), MAX_LIFETIME_MS).unref()

const options = JSON.parse(process.argv[2])
const url = new URL(options.url)
if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost' && url.hostname !== '[::1]') {
  console.error(`refusing to load a non-loopback address: ${url.hostname}`)
  process.exit(2)
}

const run = (duration) =>
  autocannon({
    url: options.url,
    method: options.method,
    headers: options.headers,
    body: options.body ?? undefined,
    connections: options.connections,
    pipelining: 1,
    duration,
    timeout: 10,
  })

const goSignal = new Promise((resolve) => process.on('message', (message) => message?.type === 'go' && resolve()))

if (options.warmup > 0) await run(options.warmup)
process.send({ type: 'warm' })
await goSignal
const cpuBefore = process.cpuUsage()
const result = await run(options.duration)
const cpu = process.cpuUsage(cpuBefore)
process.send({
  type: 'result',
  total: result.requests.total,
  duration: result.duration,
  ok: result['2xx'],
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  latency: { p50: result.latency.p50, p99: result.latency.p99, average: result.latency.average },
  bytes: result.throughput.total,
  loadgenCpuMicros: cpu.user + cpu.system,
})
process.disconnect()
