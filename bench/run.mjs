/**
 * mockyard's side-by-side HTTP benchmark (issue 6). See bench/README.md.
 *
 *   npm run bench                  W1–W5, 3 interleaved rounds, 2 s warm-up + 10 s measured
 *   npm run bench -- --quick       1 s warm-up + 3 s measured, in-process cases 5,000 requests
 *   npm run bench -- --only W1,W5 --rounds 5 --servers bare,mockyard
 *
 * Every server runs in its own child process (pinned to core 1 with taskset when available),
 * the load generator (autocannon) in another (core 0). Needs `npm run build` first: mockyard is
 * loaded from dist/.
 */
import { spawn, spawnSync } from 'node:child_process'
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { createRequire } from 'node:module'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeFixtures } from './fixtures.mjs'

const here = fileURLToPath(new URL('.', import.meta.url))
const root = join(here, '..')
const SERVER_SCRIPT = join(here, 'server.mjs')
const LOADGEN_SCRIPT = join(here, 'loadgen.mjs')
const IN_PROCESS_SCRIPT = join(here, 'in-process.mjs')
const HOST = '127.0.0.1'
const ALL_SERVERS = ['bare', 'mockyard', 'baseline', 'availity']
const LOAD_WORKLOADS = ['W1', 'W2', 'W3', 'W4-10', 'W4-5000', 'W5']
const ALL_WORKLOADS = ['W1', 'W2', 'W3', 'W4', 'W4-10', 'W4-5000', 'W5']
const SERVER_START_TIMEOUT_MS = 60_000

// ---------------------------------------------------------------------------------------------
// Options

function parseArgs(argv) {
  const options = {
    quick: false,
    rounds: 3,
    warmup: 2,
    duration: 10,
    connections: 10,
    only: ALL_WORKLOADS,
    servers: ALL_SERVERS.filter((s) => s !== 'baseline'),
    inProcess: true,
    json: undefined,
    keep: false,
    profile: undefined,
    profileInterval: undefined,
    sequential: 500,
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = () => {
      const next = argv[++i]
      if (next === undefined) throw new Error(`${arg} needs a value`)
      return next
    }
    if (arg === '--quick') options.quick = true
    else if (arg === '--rounds') options.rounds = positive(arg, value())
    else if (arg === '--warmup') options.warmup = Number(value())
    else if (arg === '--duration') options.duration = positive(arg, value())
    else if (arg === '--connections') options.connections = positive(arg, value())
    else if (arg === '--only') options.only = value().split(',').map((w) => w.trim().toUpperCase())
    else if (arg === '--servers') options.servers = value().split(',').map((s) => s.trim())
    else if (arg === '--no-in-process') options.inProcess = false
    else if (arg === '--json') options.json = value()
    else if (arg === '--report') options.report = value()
    else if (arg === '--keep') options.keep = true
    else if (arg === '--baseline') options.baseline = resolve(value())
    else if (arg === '--profile') options.profile = value()
    else if (arg === '--profile-interval') options.profileInterval = positive(arg, value())
    else if (arg === '--help' || arg === '-h') {
      console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0])
      process.exit(0)
    } else throw new Error(`unknown argument ${arg} (see bench/README.md)`)
  }
  if (options.quick) {
    if (!argv.includes('--warmup')) options.warmup = 1
    if (!argv.includes('--duration')) options.duration = 3
    options.sequential = 200
  }
  for (const w of options.only) if (!ALL_WORKLOADS.includes(w)) throw new Error(`unknown workload ${w}; workloads: ${ALL_WORKLOADS.join(', ')}`)
  for (const s of options.servers) if (!ALL_SERVERS.includes(s)) throw new Error(`unknown server ${s}; servers: ${ALL_SERVERS.join(', ')}`)
  if (!options.servers.includes('bare')) options.servers.unshift('bare')
  // --baseline DIR: a build of the commit before a change, measured beside dist/ in the same run.
  if (options.baseline && !options.servers.includes('baseline')) options.servers.push('baseline')
  if (options.servers.includes('baseline') && !options.baseline) throw new Error('the baseline server needs --baseline DIR (a dist/ folder built from another commit)')
  return options
}

function positive(name, text) {
  const n = Number(text)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${text}`)
  return n
}

// ---------------------------------------------------------------------------------------------
// Child processes

const children = new Set()
let fixturesDir
function killChildren() {
  for (const child of children) child.kill('SIGKILL')
}
function removeFixtures() {
  if (fixturesDir) rmSync(fixturesDir, { recursive: true, force: true })
  fixturesDir = undefined
}
process.on('exit', killChildren)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    killChildren()
    removeFixtures()
    process.exit(130)
  })
}

let tasksetWorks = false
function pinned(core, args) {
  return tasksetWorks ? ['taskset', ['-c', String(core), process.execPath, ...args]] : [process.execPath, args]
}

function track(child) {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

function tail(text, max = 2000) {
  return text.length > max ? `…${text.slice(-max)}` : text
}

/** Waits for the first IPC message of `type` (or a failure, an exit, a timeout). */
function nextMessage(child, type, timeoutMs) {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer)
      child.off('message', onMessage)
      child.off('exit', onExit)
    }
    const onMessage = (message) => {
      if (message?.type === type) {
        cleanup()
        resolve(message)
      } else if (message?.type === 'failed') {
        cleanup()
        reject(new Error(message.error))
      }
    }
    const onExit = (code, signal) => {
      cleanup()
      reject(new Error(`exited (${code ?? signal}) before '${type}'${child.stderrText ? `:\n${tail(child.stderrText)}` : ''}`))
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`no '${type}' within ${timeoutMs} ms`))
    }, timeoutMs)
    child.on('message', onMessage)
    child.on('exit', onExit)
  })
}

function collectStderr(child) {
  child.stderrText = ''
  child.stderr?.on('data', (chunk) => {
    child.stderrText = tail(child.stderrText + chunk, 8000)
  })
}

/** Starts one server child; resolves once it answered its first request (the start-up time). */
async function startServer(kind, workload, context) {
  const { profile, profileInterval } = context.options
  const nodeArgs = profile ? ['--cpu-prof', '--cpu-prof-dir', join(profile, kind), ...(profileInterval ? ['--cpu-prof-interval', String(profileInterval)] : [])] : []
  const [command, args] = pinned(1, [...nodeArgs, SERVER_SCRIPT, kind, context.dir, workload.id])
  const env = { ...process.env }
  if (kind === 'availity') env.NODE_ENV = 'testing'
  if (kind === 'baseline') env.MOCKYARD_BASELINE_DIST = context.options.baseline
  const started = performance.now()
  const child = track(spawn(command, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] }))
  collectStderr(child)
  const { port } = await nextMessage(child, 'ready', SERVER_START_TIMEOUT_MS)
  const readyMs = performance.now() - started
  const agent = new http.Agent({ keepAlive: false })
  const first = await request(port, workload, agent)
  const startupMs = performance.now() - started
  agent.destroy()
  return { child, port, readyMs, startupMs, check: checkAnswer(first, workload, context) }
}

async function stopServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  try {
    child.send({ type: 'stop' })
  } catch {
    child.kill('SIGKILL')
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
  await exited
  clearTimeout(timer)
}

function serverStats(child) {
  const reply = nextMessage(child, 'stats', 10_000)
  child.send({ type: 'stats' })
  return reply
}

// ---------------------------------------------------------------------------------------------
// Requests

function request(port, workload, agent) {
  return new Promise((resolve, reject) => {
    const headers = { ...workload.headers }
    if (workload.body !== null) headers['content-length'] = Buffer.byteLength(workload.body)
    const req = http.request({ host: HOST, port, path: workload.path, method: workload.method, headers, agent }, (res) => {
      const chunks = []
      res.on('data', (chunk) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.setTimeout(30_000, () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    req.end(workload.body ?? undefined)
  })
}

/** Same status, body bytes and content type as the bare server sends? Returns a note or ''. */
function checkAnswer(answer, workload, context) {
  const expected = context.expected.get(workload.id)
  const notes = []
  if (answer.status !== 200) notes.push(`status ${answer.status}`)
  if (!answer.body.equals(expected)) notes.push(`body differs (${answer.body.length} bytes, expected ${expected.length})`)
  if (answer.headers['content-type'] !== workload.contentType) notes.push(`content-type ${answer.headers['content-type']}`)
  return notes.join('; ')
}

/** `count` sequential requests over one keep-alive connection: median and p99 latency in ms. */
async function sequentialLatency(port, workload, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const warm = Math.min(100, count)
  for (let i = 0; i < warm; i++) await request(port, workload, agent)
  const times = []
  for (let i = 0; i < count; i++) {
    const t0 = performance.now()
    await request(port, workload, agent)
    times.push(performance.now() - t0)
  }
  agent.destroy()
  times.sort((a, b) => a - b)
  return { median: times[Math.floor(times.length / 2)], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] }
}

/** Busy CPU time (ms) of each core, from os.cpus(). */
function coreBusy() {
  return os.cpus().map((cpu) => cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq)
}

/** Drives one server with autocannon in a child on core 0; measures the server's CPU around the window. */
async function runLoad(server, workload, context) {
  const { options } = context
  const config = {
    url: `http://${HOST}:${server.port}${workload.path}`,
    method: workload.method,
    headers: workload.headers,
    body: workload.body,
    connections: options.connections,
    warmup: options.warmup,
    duration: options.duration,
  }
  const [command, args] = pinned(0, [LOADGEN_SCRIPT, JSON.stringify(config)])
  const loadgen = track(spawn(command, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] }))
  collectStderr(loadgen)
  const limit = (options.warmup + options.duration) * 1000 + 60_000
  try {
    await nextMessage(loadgen, 'warm', limit)
    const before = await serverStats(server.child)
    const busyBefore = coreBusy()
    const windowStart = performance.now()
    const resultPromise = nextMessage(loadgen, 'result', limit)
    loadgen.send({ type: 'go' })
    const result = await resultPromise
    const after = await serverStats(server.child)
    const windowMs = performance.now() - windowStart
    const busyAfter = coreBusy()
    const serverCpuMicros = after.cpu.user + after.cpu.system - (before.cpu.user + before.cpu.system)
    const coreBusyMs = busyAfter[1] !== undefined ? busyAfter[1] - busyBefore[1] : NaN
    return {
      reqPerSec: result.total / result.duration,
      total: result.total,
      p99: result.latency.p99,
      p50: result.latency.p50,
      cpuPerReq: result.total > 0 ? serverCpuMicros / result.total : NaN,
      serverCpuPct: (serverCpuMicros / 1000 / windowMs) * 100,
      loadgenCpuPct: (result.loadgenCpuMicros / 1000 / (result.duration * 1000)) * 100,
      // Other processes' work on the server's core during the window (only meaningful when pinned).
      foreignPct: tasksetWorks ? Math.max(0, ((coreBusyMs - serverCpuMicros / 1000) / windowMs) * 100) : NaN,
      rss: after.rss,
      heapUsed: after.heapUsed,
      failures: result.non2xx + result.errors + result.timeouts,
    }
  } finally {
    if (loadgen.exitCode === null) loadgen.kill('SIGKILL')
  }
}

// ---------------------------------------------------------------------------------------------
// The rounds

async function measure(kind, workload, context) {
  const server = await startServer(kind, workload, context)
  try {
    const record = { startupMs: server.startupMs, readyMs: server.readyMs, check: server.check }
    if (workload.id === 'W4') {
      Object.assign(record, { sequential: await sequentialLatency(server.port, workload, context.options.sequential) })
      const stats = await serverStats(server.child)
      record.rss = stats.rss
    } else {
      Object.assign(record, await runLoad(server, workload, context))
    }
    return record
  } finally {
    await stopServer(server.child)
  }
}

function rotate(list, by) {
  const n = by % list.length
  return [...list.slice(n), ...list.slice(0, n)]
}

async function runRounds(context) {
  const { options, workloads } = context
  const results = {}
  const broken = new Set()
  const ids = ALL_WORKLOADS.filter((w) => options.only.includes(w))
  for (let round = 0; round < options.rounds; round++) {
    for (const id of ids) {
      const workload = workloads[id]
      // Rotate the order each round so that no server always runs first (or after the same one).
      for (const kind of rotate(options.servers, round)) {
        if (broken.has(kind)) continue
        process.stderr.write(`round ${round + 1}/${options.rounds}  ${id.padEnd(8)} ${kind.padEnd(9)} `)
        try {
          const record = await measure(kind, workload, context)
          record.round = round
          ;((results[id] ??= {})[kind] ??= []).push(record)
          process.stderr.write(`${describeRecord(record)}\n`)
          if (record.check) process.stderr.write(`  answer check: ${record.check}\n`)
        } catch (error) {
          process.stderr.write(`FAILED: ${error.message}\n`)
          context.failures.push(`${kind} ${id} round ${round + 1}: ${error.message.split('\n')[0]}`)
          if (kind === 'availity' && /ready|exited/.test(error.message)) {
            broken.add(kind)
            context.failures.push(`${kind}: does not start under Node ${process.version}; left out of the remaining runs`)
          }
        }
      }
    }
  }
  return results
}

function describeRecord(r) {
  if (r.sequential) return `start ${r.startupMs.toFixed(0)} ms, one request ${r.sequential.median.toFixed(3)} ms`
  return `${Math.round(r.reqPerSec).toLocaleString('en-US')} req/s, p99 ${r.p99} ms, ${r.cpuPerReq.toFixed(1)} µs CPU/req, RSS ${(r.rss / 2 ** 20).toFixed(0)} MB, start ${r.startupMs.toFixed(0)} ms${r.failures ? `, ${r.failures} failures` : ''}`
}

// ---------------------------------------------------------------------------------------------
// Report

function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

function spread(values) {
  const m = median(values)
  const finite = values.filter((v) => Number.isFinite(v))
  if (finite.length < 2 || !m) return NaN
  return ((Math.max(...finite) - Math.min(...finite)) / m) * 100
}

const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-')
const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-')
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN)
const fmtRatio = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : '-')

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => String(row[c]).length)))
  const line = (row) => row.map((cell, c) => (c < 2 ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c]))).join('  ')
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n')
}

/**
 * Each round's ratio to the bare server of the same round (they ran one after the other, so a
 * slow stretch of the machine weighs on both): the median and the range over the rounds. Steadier
 * than the ratio of the medians when the machine's speed drifts during a run.
 */
function pairedRatios(records, bareRecords) {
  const rps = []
  const cpu = []
  for (const record of records) {
    const bare = bareRecords.find((b) => b.round === record.round)
    if (!bare || record.round === undefined) continue
    rps.push(ratio(record.reqPerSec, bare.reqPerSec))
    cpu.push(ratio(record.cpuPerReq, bare.cpuPerReq))
  }
  const finite = (values) => values.filter((v) => Number.isFinite(v))
  return {
    pairedRps: median(rps),
    pairedRpsMin: Math.min(...finite(rps)),
    pairedRpsMax: Math.max(...finite(rps)),
    pairedCpu: median(cpu),
    pairedCpuMin: Math.min(...finite(cpu)),
    pairedCpuMax: Math.max(...finite(cpu)),
  }
}

function summarize(results, options) {
  const summary = {}
  for (const [id, byServer] of Object.entries(results)) {
    summary[id] = {}
    for (const [kind, records] of Object.entries(byServer)) {
      const pick = (f) => records.map(f)
      summary[id][kind] = {
        rounds: records.length,
        reqPerSec: median(pick((r) => r.reqPerSec)),
        reqSpread: spread(pick((r) => r.reqPerSec)),
        p99: median(pick((r) => r.p99)),
        cpuPerReq: median(pick((r) => r.cpuPerReq)),
        cpuSpread: spread(pick((r) => r.cpuPerReq)),
        rss: median(pick((r) => r.rss)),
        startupMs: median(pick((r) => r.startupMs)),
        readyMs: median(pick((r) => r.readyMs)),
        sequential: median(pick((r) => r.sequential?.median)),
        sequentialP99: median(pick((r) => r.sequential?.p99)),
        foreignPct: median(pick((r) => r.foreignPct)),
        loadgenCpuPct: median(pick((r) => r.loadgenCpuPct)),
        serverCpuPct: median(pick((r) => r.serverCpuPct)),
        failures: records.reduce((sum, r) => sum + (r.failures ?? 0), 0),
        ...pairedRatios(records, byServer.bare ?? []),
        check: [...new Set(records.map((r) => r.check).filter(Boolean))].join('; '),
      }
    }
  }
  void options
  return summary
}

function report(summary, context) {
  const { options, workloads } = context
  const out = []
  const mb = (bytes) => bytes / 2 ** 20
  out.push(
    `mockyard bench — Node ${process.version}, ${os.cpus().length} cores, ${options.rounds} interleaved rounds, ` +
      `${options.connections} connections, ${options.warmup} s warm-up + ${options.duration} s measured, ` +
      `${tasksetWorks ? 'servers on core 1 and load generator on core 0 (taskset)' : 'no taskset: processes not pinned'}`,
  )
  const loads = (list) => (list ?? []).map((l) => l.toFixed(2)).join(' ')
  out.push(`load average at start ${loads(context.loadStart)}, at end ${loads(context.loadEnd)}`)
  out.push('Medians over the rounds; (x) = ratio to the bare node:http server in the same run.')
  out.push('')

  const rows = [['workload', 'server', 'req/s', '(x)', '±%', 'p99 ms', '(x)', 'CPU µs/req', '(x)', 'RSS MB', '(x)', 'start ms', '(x)', 'gen CPU%', 'other%']]
  for (const id of LOAD_WORKLOADS) {
    const byServer = summary[id]
    if (!byServer) continue
    const bare = byServer.bare ?? {}
    for (const kind of ALL_SERVERS) {
      const s = byServer[kind]
      if (!s) continue
      rows.push([
        id,
        kind + (s.failures ? ` (${s.failures} failed)` : '') + (s.check ? ' (!)' : ''),
        fmtInt(s.reqPerSec),
        fmtRatio(ratio(s.reqPerSec, bare.reqPerSec)),
        fmt(s.reqSpread, 0),
        s.p99 === 0 ? '<1' : fmt(s.p99, 0),
        fmtRatio(ratio(s.p99, bare.p99)),
        fmt(s.cpuPerReq),
        fmtRatio(ratio(s.cpuPerReq, bare.cpuPerReq)),
        fmt(mb(s.rss), 0),
        fmtRatio(ratio(s.rss, bare.rss)),
        fmt(s.startupMs, 0),
        fmtRatio(ratio(s.startupMs, bare.startupMs)),
        fmt(s.loadgenCpuPct, 0),
        fmt(s.foreignPct, 0),
      ])
    }
  }
  if (rows.length > 1) {
    out.push(table(rows))
    out.push('')
    out.push(
      '±% = (max - min) / median of req/s over the rounds. gen CPU% = the load generator\'s CPU over the window (near 100: the\n' +
        'figure is bounded by autocannon, not the server). other% = CPU on the server\'s core not used by the server (other\n' +
        'processes on the machine: noise). p99 has autocannon\'s 1 ms resolution.',
    )
    out.push('')
    const paired = [['workload', 'server', 'req/s (x)', 'range', 'CPU µs/req (x)', 'range']]
    for (const id of LOAD_WORKLOADS) {
      for (const kind of ALL_SERVERS) {
        const s = summary[id]?.[kind]
        if (!s || kind === 'bare' || !Number.isFinite(s.pairedRps)) continue
        paired.push([id, kind, fmtRatio(s.pairedRps), `${fmtRatio(s.pairedRpsMin)}-${fmtRatio(s.pairedRpsMax)}`, fmtRatio(s.pairedCpu), `${fmtRatio(s.pairedCpuMin)}-${fmtRatio(s.pairedCpuMax)}`])
      }
    }
    if (paired.length > 1) {
      out.push('Per round: each server against the bare server of the same round (median and range over the rounds):')
      out.push(table(paired))
      out.push('')
    }
  }

  if (summary.W4) {
    const bare = summary.W4.bare ?? {}
    const w4 = [['W4: 1,000 routes', 'server', 'start→first answer ms', '(x)', 'listening ms', 'one request ms (median)', '(x)', 'p99 ms', 'RSS MB']]
    for (const kind of ALL_SERVERS) {
      const s = summary.W4[kind]
      if (!s) continue
      w4.push([
        workloads?.W4?.path ?? 'W4',
        kind + (s.check ? ' (!)' : ''),
        fmt(s.startupMs, 0),
        fmtRatio(ratio(s.startupMs, bare.startupMs)),
        fmt(s.readyMs, 0),
        fmt(s.sequential, 3),
        fmtRatio(ratio(s.sequential, bare.sequential)),
        fmt(s.sequentialP99, 3),
        fmt(mb(s.rss), 0),
      ])
    }
    out.push(table(w4))
    out.push(`(one request: ${options.sequential} sequential requests over one keep-alive connection after 100 warm-up ones, from the parent process)`)
    out.push('')
  }

  out.push(...targets(summary))
  const checks = []
  for (const [id, byServer] of Object.entries(summary)) for (const [kind, s] of Object.entries(byServer)) if (s.check) checks.push(`  ${id} ${kind}: ${s.check}`)
  if (checks.length > 0) out.push('', '(!) answers that differ from the bare server\'s bytes:', ...checks)
  if (context.failures?.length > 0) out.push('', 'Failures:', ...context.failures.map((f) => `  ${f}`))
  if (context.notes?.length > 0) out.push('', ...context.notes)
  return out.join('\n')
}

/** The issue's targets for mockyard, checked against this run's ratios. */
function targets(summary) {
  const my = (id) => summary[id]?.mockyard
  const bare = (id) => summary[id]?.bare
  const lines = ['Targets (issues 6 and 21), mockyard in this run:']
  const check = (label, value, ok, goal) => {
    if (!Number.isFinite(value)) return
    lines.push(`  ${ok ? 'met   ' : 'MISSED'}  ${label.padEnd(40)} ${fmtRatio(value).padStart(7)}  (target ${goal})`)
  }
  const rps = (id) => ratio(my(id)?.reqPerSec, bare(id)?.reqPerSec)
  const cpu = (id) => ratio(my(id)?.cpuPerReq, bare(id)?.cpuPerReq)
  check('W1 req/s', rps('W1'), rps('W1') >= 0.6, '>= 0.6x')
  check('W1 CPU/request', cpu('W1'), cpu('W1') <= 1.7, '<= 1.7x')
  check('W2 req/s', rps('W2'), rps('W2') >= 0.5, '>= 0.5x')
  check('W3 req/s', rps('W3'), rps('W3') >= 0.5, '>= 0.5x')
  // Issue 21: W1-W3 at 0.85x of the bare server, on the per-round ratios' median.
  for (const id of ['W1', 'W2', 'W3']) {
    const value = my(id)?.pairedRps
    check(`${id} req/s, per-round median (issue 21)`, value, value >= 0.85, '>= 0.85x')
  }
  const start = ratio(my('W4')?.startupMs, bare('W4')?.startupMs)
  check('W4 start to first answer, 1,000 routes', start, start <= 2, '<= 2x')
  // Each relative to the bare server of its own workload, so that drift of the machine between
  // the runs cancels out (the bare server's cost does not depend on the number of routes).
  const scale = ratio(cpu('W4-5000'), cpu('W4-10'))
  check('W4 CPU/request (x), 5,000 vs 10 routes', scale, scale <= 1.1, '~1x (<= 1.1x)')
  const vsOne = ratio(cpu('W4-5000'), cpu('W1'))
  check('W4 CPU/request (x), 5,000 routes vs W1', vsOne, vsOne <= 1.1, '~1x (<= 1.1x)')
  check('W5 req/s', rps('W5'), rps('W5') >= 0.7, '>= 0.7x')
  let worst = NaN
  let worstId = ''
  for (const id of Object.keys(summary)) {
    const r = ratio(my(id)?.rss, bare(id)?.rss)
    if (Number.isFinite(r) && !(r <= worst)) {
      worst = r
      worstId = id
    }
  }
  check(`RSS after load, worst workload (${worstId})`, worst, worst <= 1.5, '<= 1.5x')
  return lines
}

// ---------------------------------------------------------------------------------------------
// Main

function newestMtime(dir) {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

/** Fixture folders of runs that were killed (SIGKILL leaves them): those older than 2 hours. */
function removeStaleFixtures(tmp) {
  for (const name of readdirSync(tmp)) {
    if (!name.startsWith('mockyard-bench-')) continue
    const path = join(tmp, name)
    try {
      if (Date.now() - statSync(path).mtimeMs > 2 * 3600_000) rmSync(path, { recursive: true, force: true })
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

function accessible(path) {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

function runInProcess(options) {
  return new Promise((resolve) => {
    const args = [IN_PROCESS_SCRIPT, ...(options.quick ? ['--count', '5000'] : [])]
    // Give the in-process cases both cores back (this process is pinned to core 0).
    const [command, commandArgs] = tasksetWorks ? ['taskset', ['-c', '0,1', process.execPath, ...args]] : [process.execPath, args]
    const child = track(spawn(command, commandArgs, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }))
    let text = ''
    child.stdout.on('data', (chunk) => (text += chunk))
    child.on('exit', (code) => resolve({ code, text }))
  })
}

/** `--report FILE`: prints the table of a run saved with `--json FILE` again (no measuring). */
function reprint(file) {
  const saved = JSON.parse(readFileSync(file, 'utf8'))
  tasksetWorks = saved.tasksetWorks
  const context = { ...saved, options: saved.options }
  console.log(report(summarize(saved.results, saved.options), context))
}

async function main() {
  const options = parseArgs(process.argv.slice(2))
  if (options.report) return reprint(options.report)
  const dist = join(root, 'dist/node/index.js')
  if (!existsSync(dist)) throw new Error('dist/node/index.js is missing: run `npm run build` first')
  const notes = []
  if (newestMtime(join(root, 'src')) > statSync(dist).mtimeMs) notes.push('NOTE: src/ has changes newer than dist/: run `npm run build` to measure them.')

  tasksetWorks = spawnSync('taskset', ['-c', '0', 'true']).status === 0 && os.cpus().length >= 2
  if (tasksetWorks) spawnSync('taskset', ['-pc', '0', String(process.pid)], { stdio: 'ignore' })

  if (options.servers.includes('availity')) {
    try {
      createRequire(join(root, 'package.json')).resolve('@availity/mock-server/package.json')
    } catch {
      options.servers = options.servers.filter((s) => s !== 'availity')
      notes.push('@availity/mock-server is not installed (npm install): left out.')
    }
  }

  // A memory file system when there is one: writing ~6,000 small files to a busy disk takes seconds.
  const tmp = existsSync('/dev/shm') && accessible('/dev/shm') ? '/dev/shm' : os.tmpdir()
  removeStaleFixtures(tmp)
  const dir = mkdtempSync(join(tmp, 'mockyard-bench-'))
  if (!options.keep) fixturesDir = dir
  try {
    const workloads = writeFixtures(dir)
    const expected = new Map(Object.values(workloads).map((w) => [w.id, readFileSync(w.expected)]))
    const context = { options, dir, workloads, expected, failures: [], notes, loadStart: os.loadavg() }
    process.stderr.write(
      `fixtures in ${dir}: W1 ${expected.get('W1').length} B, W5 ${expected.get('W5').length} B; servers: ${options.servers.join(', ')}\n`,
    )
    const results = await runRounds(context)
    const summary = summarize(results, options)
    context.loadEnd = os.loadavg()
    const text = report(summary, context)
    console.log(`\n${text}`)
    if (options.json) {
      const saved = { options, summary, results, workloads, failures: context.failures, notes, loadStart: context.loadStart, loadEnd: context.loadEnd, tasksetWorks }
      writeFileSync(options.json, JSON.stringify(saved, null, 2))
    }

    if (options.inProcess && existsSync(IN_PROCESS_SCRIPT)) {
      process.stderr.write('\nrunning bench/in-process.mjs…\n')
      const inProcess = await runInProcess(options)
      console.log(`\nIn process (bench/in-process.mjs${options.quick ? ' --count 5000' : ''}):\n${inProcess.text.trimEnd()}`)
      if (inProcess.code !== 0) console.log(`(bench/in-process.mjs exited with ${inProcess.code})`)
    }
  } finally {
    if (options.keep) process.stderr.write(`fixtures kept in ${dir}\n`)
    else removeFixtures()
  }
}

try {
  await main()
} catch (error) {
  console.error(`bench: ${error.message}`)
  process.exitCode = 1
} finally {
  killChildren()
}
