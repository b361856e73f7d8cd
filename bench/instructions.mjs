/**
 * Instructions per request, counted (valgrind's callgrind), not timed: the same build gives the
 * same figure within about 1% whatever else the machine is doing, so a change of a few hundred
 * instructions a request shows in one run, where requests/s on a shared 2-core machine needs
 * many (bench/README.md, "Counted instructions").
 *
 *   npx node bench/instructions.mjs                                  W1-W3, bare and dist/
 *   npx node bench/instructions.mjs --only W3 dist /tmp/before/dist  two builds beside the bare server
 *   npx node bench/instructions.mjs --only W3 --functions 40 dist    and where the difference to bare goes
 *
 * Each server (bench/server.mjs's bare server, or `startMockServer` from a `dist/` folder) runs
 * under callgrind with `--single-threaded` (no background compiler or GC threads), and a client
 * outside valgrind sends its workload over 4 keep-alive connections: `--warmup` requests with
 * counting off (V8 is still compiling the hot path for the first ~16,000), then `--requests`
 * counted ones (`callgrind_control`), whose total over their number is the work of one request.
 * Only user-space instructions count: the kernel's share of a socket write is not in it
 * (bench/README.md, "What CPU per request includes"), which is what makes the figure steady.
 *
 * `--functions N` also prints the N functions whose instructions per request differ most from
 * the bare server's (JIT code named through node's `--perf-basic-prof` map). Needs valgrind
 * (Debian: `apt-get install valgrind`); nothing here runs in CI.
 */
import { spawn, spawnSync } from 'node:child_process'
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import { join, resolve } from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'
import { writeFixtures } from './fixtures.mjs'

const here = fileURLToPath(new URL('.', import.meta.url))
const args = process.argv.slice(2)
const option = (name, fallback) => {
  const i = args.indexOf(name)
  if (i === -1) return fallback
  const [value] = args.splice(i, 2).slice(1)
  return value
}
const only = option('--only', 'W1,W2,W3').split(',').map((w) => w.trim().toUpperCase())
const warmup = Number(option('--warmup', '20000'))
const requests = Number(option('--requests', '10000'))
const functions = Number(option('--functions', '0'))
const builds = (args.length > 0 ? args : ['dist']).map((dist) => resolve(dist))

if (spawnSync('valgrind', ['--version']).status !== 0 || spawnSync('callgrind_control', ['--version']).status !== 0) {
  console.error('bench/instructions.mjs needs valgrind and its callgrind_control (Debian: apt-get install valgrind)')
  process.exit(2)
}
for (const dist of builds) {
  if (!existsSync(join(dist, 'node/index.js'))) {
    console.error(`${dist} is not a dist/ folder (no node/index.js): run npm run build, or name another build`)
    process.exit(2)
  }
}

const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'mockyard-instructions-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130))
const workloads = writeFixtures(dir)

/** Sends `count` requests of a workload over the agent's 4 keep-alive connections. */
async function drive(agent, port, workload, count) {
  const headers = { ...workload.headers }
  if (workload.body !== null) headers['content-length'] = Buffer.byteLength(workload.body)
  const one = () =>
    new Promise((done, fail) => {
      const req = http.request({ host: '127.0.0.1', port, path: workload.path, method: workload.method, headers, agent }, (res) => {
        if (res.statusCode !== 200) fail(new Error(`${workload.id}: status ${res.statusCode}`))
        res.resume()
        res.on('end', done)
      })
      req.on('error', fail)
      req.end(workload.body ?? undefined)
    })
  let sent = 0
  const worker = async () => {
    while (sent < count) {
      sent++
      await one()
    }
  }
  await Promise.all([worker(), worker(), worker(), worker()])
}

/** One server under callgrind: the instructions of `requests` requests after `warmup` uncounted ones (and the profile's files when asked). */
async function count(kind, dist, workload, keep) {
  const out = join(dir, `cg-${process.hrtime.bigint()}`)
  // --perf-basic-prof also writes a V8 log file into the working folder: sent nowhere.
  const nodeArgs = ['--single-threaded', ...(keep ? ['--perf-basic-prof', '--no-compact-code-space', '--logfile=/dev/null'] : [])]
  const valgrindArgs = ['--tool=callgrind', '--cache-sim=yes', '--instr-atstart=no', `--callgrind-out-file=${out}.%p`, '--dump-line=no', `--dump-instr=${keep ? 'yes' : 'no'}`, '--compress-strings=no', '--compress-pos=no']
  const child = spawn('valgrind', [...valgrindArgs, process.execPath, ...nodeArgs, join(here, 'server.mjs'), kind, dir, workload.id], {
    env: { ...process.env, MOCKYARD_BASELINE_DIST: dist ?? '' },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
  const exited = new Promise((done) => child.on('exit', done))
  const port = await new Promise((done, fail) => {
    child.on('message', (message) => {
      if (message?.type === 'ready') done(message.port)
      if (message?.type === 'failed') fail(new Error(message.error))
    })
    child.on('exit', (code) => fail(new Error(`the server exited (${code}) before it was ready:\n${stderr}`)))
  })
  const control = (...flags) => {
    const result = spawnSync('callgrind_control', [...flags, String(child.pid)], { encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`callgrind_control ${flags.join(' ')} failed: ${result.stderr || result.stdout}`)
  }
  // The same connections for the warm-up and the counted requests: new ones would send V8 back to
  // compiling what a new connection runs, and that would be counted (about half the bare server's figure).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 })
  await drive(agent, port, workload, warmup)
  control('--instr=on')
  await drive(agent, port, workload, requests)
  control('--dump')
  agent.destroy()
  child.send({ type: 'stop' })
  await exited
  // The first dump holds the counted requests; the one at exit, the stop.
  const prefix = out.slice(dir.length + 1)
  const file = join(dir, readdirSync(dir).find((name) => name.startsWith(`${prefix}.`) && name.endsWith('.1')) ?? '')
  const text = readFileSync(file, 'utf8').slice(0, 4000)
  const events = /^events: (.*)$/m.exec(text)[1].trim().split(/\s+/)
  const values = (/^summary: (.*)$/m.exec(text) ?? /^totals: (.*)$/m.exec(text))[1].trim().split(/\s+/).map(Number)
  const total = Object.fromEntries(events.map((event, i) => [event, values[i] ?? 0]))
  for (const name of readdirSync(dir)) if (name.startsWith(`${prefix}.`) && join(dir, name) !== file) rmSync(join(dir, name))
  if (!keep) {
    rmSync(file)
    return { total }
  }
  const pid = /^pid: (\d+)/m.exec(text)?.[1]
  return { total, file, map: `/tmp/perf-${pid}.map` }
}

/** Self instructions and first-level instruction cache misses per function of one callgrind file (JIT code named from node's perf map). */
async function selfCosts(file, map) {
  const ranges = existsSync(map)
    ? readFileSync(map, 'utf8').trim().split('\n').map((line) => /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line)).filter(Boolean).map((m) => [parseInt(m[1], 16), parseInt(m[2], 16), m[3]]).sort((a, b) => a[0] - b[0])
    : []
  const jitName = (address) => {
    let low = 0
    let high = ranges.length - 1
    let found = -1
    while (low <= high) {
      const mid = (low + high) >> 1
      if (ranges[mid][0] <= address) {
        found = mid
        low = mid + 1
      } else high = mid - 1
    }
    return found >= 0 && address < ranges[found][0] + ranges[found][1] ? ranges[found][2] : undefined
  }
  const costs = new Map()
  let object = ''
  let fn = ''
  let afterCall = false
  let positions = 1
  let ir = 0
  let i1 = -1
  for await (const line of readline.createInterface({ input: createReadStream(file) })) {
    if (line.startsWith('positions:')) positions = line.slice(10).trim().split(/\s+/).length
    else if (line.startsWith('events:')) {
      const events = line.slice(7).trim().split(/\s+/)
      ir = events.indexOf('Ir')
      i1 = events.indexOf('I1mr')
    } else if (line.startsWith('ob=')) object = line.slice(3)
    else if (line.startsWith('fn=')) fn = line.slice(3)
    else if (line.startsWith('calls=')) afterCall = true
    else if (line.startsWith('0x')) {
      // The line after `calls=` is the inclusive cost of that call, not this function's own.
      if (afterCall) afterCall = false
      else {
        const parts = line.split(' ')
        const address = parseInt(parts[0].slice(2), 16)
        const name = object === '???' || fn.startsWith('0x') ? (jitName(address) ?? `(unnamed code in ${object.split('/').pop()})`) : `${fn} [${object.split('/').pop()}]`
        const cost = costs.get(name) ?? [0, 0]
        cost[0] += Number(parts[positions + ir] ?? 0)
        cost[1] += i1 === -1 ? 0 : Number(parts[positions + i1] ?? 0)
        costs.set(name, cost)
      }
    } else afterCall = false
  }
  rmSync(file)
  rmSync(map, { force: true })
  const named = new Map()
  for (const [name, [instructions, misses]] of costs) {
    const short = name
      .replace(/^(JS|LazyCompile|Function):[*~^+]?/, '')
      .replace(/file:\/\/\S*\/dist\/(chunks\/)?/, '')
      .replace(/-[A-Za-z0-9_-]{8}\.js/, '.js')
    const sum = named.get(short) ?? [0, 0]
    named.set(short, [sum[0] + instructions, sum[1] + misses])
  }
  return named
}

/**
 * Cachegrind's rough cycle estimate: an instruction a cycle, a first-level cache miss 10, a
 * last-level one 100. Under load the listener's figures follow it better than instructions alone:
 * most of what mockyard adds to a request is code to fetch, not instructions to run.
 */
const estimate = (t) => t.Ir + 10 * (t.I1mr + t.D1mr + t.D1mw) + 100 * (t.ILmr + t.DLmr + t.DLmw)

/** Per request of one server: instructions, cache misses and the cycle estimate, and per function when asked. */
async function measure(kind, dist, workload) {
  const counted = await count(kind, dist, workload, functions > 0)
  const per = (event) => counted.total[event] / requests
  const result = { instructions: per('Ir'), i1: per('I1mr'), d1: per('D1mr') + per('D1mw'), cycles: estimate(counted.total) / requests }
  if (functions === 0) return result
  const perFunction = new Map()
  for (const [name, [instructions, misses]] of await selfCosts(counted.file, counted.map)) perFunction.set(name, [instructions / requests, misses / requests])
  return { ...result, perFunction }
}

const servers = [{ name: 'bare', kind: 'bare' }, ...builds.map((dist) => ({ name: dist.replace(/^.*\/([^/]+\/[^/]+)$/, '$1'), kind: 'baseline', dist }))]
console.log(`per request, user space: ${requests} requests counted after ${warmup} (callgrind with its cache simulation), node ${process.version}`)
for (const id of only) {
  const workload = workloads[id]
  if (!workload) throw new Error(`unknown workload ${id}`)
  const results = []
  for (const server of servers) results.push({ server, ...(await measure(server.kind, server.dist, workload)) })
  const bare = results[0]
  const k = (n) => Math.round(n).toLocaleString('en').padStart(9)
  console.log(`\n${id}: ${workload.title}`)
  console.log(`  ${'server'.padEnd(30)} ${'instr'.padStart(9)} ${'I1 miss'.padStart(9)} ${'D1 miss'.padStart(9)} ${'est. cycles'.padStart(11)}  (x bare)`)
  for (const { server, instructions, i1, d1, cycles } of results) {
    console.log(`  ${server.name.padEnd(30)} ${k(instructions)} ${k(i1)} ${k(d1)} ${k(cycles).padStart(11)}  ${(cycles / bare.cycles).toFixed(3)}x  (instructions ${(instructions / bare.instructions).toFixed(3)}x)`)
  }
  if (functions > 0) {
    for (const { server, perFunction } of results.slice(1)) {
      console.log(`\n  ${server.name}: the ${functions} functions whose instructions and misses differ most from bare (per request: instructions, I1 misses; difference, this server, bare)`)
      const rows = [...new Set([...perFunction.keys(), ...bare.perFunction.keys()])].map((name) => [name, perFunction.get(name) ?? [0, 0], bare.perFunction.get(name) ?? [0, 0]])
      const weight = ([, mine, theirs]) => Math.abs(mine[0] - theirs[0] + 10 * (mine[1] - theirs[1]))
      rows.sort((p, q) => weight(q) - weight(p))
      for (const [name, mine, theirs] of rows.slice(0, functions)) {
        console.log(`  ${Math.round(mine[0] - theirs[0]).toString().padStart(7)} ${Math.round(mine[1] - theirs[1]).toString().padStart(5)} | ${Math.round(mine[0]).toString().padStart(7)} ${Math.round(mine[1]).toString().padStart(5)} | ${Math.round(theirs[0]).toString().padStart(7)} ${Math.round(theirs[1]).toString().padStart(5)}  ${name.slice(0, 90)}`)
      }
    }
  }
}
