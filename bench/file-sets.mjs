/**
 * What the per-file benches of the test runners share (`vitest-files.mjs`, `jest-files.mjs`): the
 * 44-route mocks every set reads, the real server the `none` set fetches, one timed run of a set
 * (wall and CPU time), the interleaved rounds, and the two tables; or one counted run of each set
 * (instructions, under valgrind) and its table.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'

export const ROUTES = 44

/** Writes the mocks (`mocks/routes.json`, `mocks/data/…`) with `write(path, text)`; returns the routes. */
export function writeResourceMocks(write) {
  const routes = {}
  for (let i = 0; i < ROUTES; i++) {
    routes[`v1/resource-${i}`] = i % 4 === 0
      ? { file: `resource-${i}.json`, get: [{ file: `resource-${i}-open.json`, params: { status: 'open' } }] }
      : { file: `resource-${i}.json` }
    write(`mocks/data/resource-${i}.json`, JSON.stringify({ id: i, items: Array.from({ length: 20 }, (_, n) => ({ n, name: `item ${n}` })) }))
    if (i % 4 === 0) write(`mocks/data/resource-${i}-open.json`, JSON.stringify({ id: i, open: true }))
  }
  write('mocks/routes.json', JSON.stringify(routes, null, 2))
  return routes
}

/**
 * The server the `none` set fetches (the same JSON bytes, from memory), in a process of its own:
 * the sets run through spawnSync, which blocks this process's event loop.
 */
export async function startNoneServer(routes) {
  const bodies = Object.keys(routes).map((key, i) => [`/${key}`, JSON.stringify({ id: i })])
  const child = spawn(
    process.execPath,
    ['-e', `const bodies = new Map(${JSON.stringify(bodies)}); const server = require('node:http').createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(bodies.get(req.url) ?? '{}')); server.listen(0, '127.0.0.1', () => console.log(server.address().port))`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const port = await new Promise((resolve) => child.stdout.once('data', (data) => resolve(Number(String(data).trim()))))
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() }
}

/**
 * Runs one set with `bash -c SCRIPT` (its `$0`, `$1`, … are `args`): its wall time, and the CPU
 * time (user + system) of the runner and every process it waited for (its workers), which bash's
 * `times` reports for its children. CPU time moves far less than wall time with the machine's
 * load, so it is the steadier figure on a shared machine.
 */
export function timedRun(name, script, args, options) {
  const started = performance.now()
  const result = spawnSync('bash', ['-c', `${script}; status=$?; echo "@times"; times; exit $status`, ...args], { ...options, encoding: 'utf8' })
  const ms = performance.now() - started
  if (result.status !== 0) {
    console.error(result.stdout, result.stderr)
    throw new Error(`the ${name} set failed (exit ${result.status})`)
  }
  // `times` prints the shell's own user/system times, then its children's: "1m2.345s 0m3.210s".
  const children = result.stdout.split('@times\n')[1].trim().split('\n')[1]
  const seconds = children.split(/\s+/).map((field) => {
    const [, minutes, secs] = /^(\d+)m([\d.]+)s$/.exec(field)
    return Number(minutes) * 60 + Number(secs)
  })
  return { ms, cpu: (seconds[0] + seconds[1]) * 1000 }
}

/**
 * One warm-up run of each set (the runner's caches, the file system's), then `rounds` rounds of
 * every set, the order rotating each round so that no set always follows the same one.
 */
export function runRounds(names, rounds, runSet) {
  const times = Object.fromEntries(names.map((name) => [name, []]))
  const cpu = Object.fromEntries(names.map((name) => [name, []]))
  for (const name of names) runSet(name)
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length])
    const line = []
    for (const name of order) {
      const run = runSet(name)
      times[name].push(run.ms)
      cpu[name].push(run.cpu)
      line.push(`${name} ${run.ms.toFixed(0)} ms (CPU ${run.cpu.toFixed(0)} ms)`)
    }
    console.log(`round ${round + 1}: ${line.join(', ')}`)
  }
  return { times, cpu }
}

export const loadAverage = () => loadavg().map((n) => n.toFixed(1)).join(' ')

/** The value at quantile `q` of a list (linear between the two nearest ranks). */
function quantile(list, q) {
  const sorted = [...list].sort((a, b) => a - b)
  const at = (sorted.length - 1) * q
  const low = Math.floor(at)
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low)
}
const median = (list) => quantile(list, 0.5)
const ms = (n) => n.toFixed(0).padStart(6)

/** One table: per set the spread, the ratio of medians to `none`, and the per-round ratios to `none`. */
function table(title, measured) {
  const floor = median(measured.none)
  console.log(`\n${title}`)
  console.log(`  ${'set'.padEnd(8)} ${'min'.padStart(6)} ${'median'.padStart(9)} ${'max'.padStart(9)} ${'IQR'.padStart(9)}   median/none   per round/none: median (min-max)`)
  for (const [name, list] of Object.entries(measured)) {
    const paired = list.map((value, round) => value / measured.none[round])
    const spread = name === 'none' ? '' : `   ${median(paired).toFixed(3)}x (${Math.min(...paired).toFixed(3)}-${Math.max(...paired).toFixed(3)})`
    console.log(
      `  ${name.padEnd(8)} ${ms(Math.min(...list))} ${ms(median(list))} ms ${ms(Math.max(...list))} ms ${ms(quantile(list, 0.75) - quantile(list, 0.25))} ms   ${(median(list) / floor).toFixed(3)}x${spread}`,
    )
  }
}

/** The summary line and the two tables (wall time, CPU time) of a run; `runner` names the command (`vitest run`, `jest`). */
export function printTables({ files, rounds, loadBefore, runner, times, cpu }) {
  console.log(`\n${files} test files, each one fetch; ${rounds} interleaved rounds; load average ${loadBefore} before, ${loadAverage()} after.`)
  table(`Wall time of \`${runner}\`:`, times)
  table(`CPU time (user + system) of \`${runner}\` and its workers:`, cpu)
}

/**
 * One run of a set under valgrind's cachegrind (no cache simulation: instructions only), every
 * process the runner starts included (`--trace-children`): the instructions its main process and
 * its workers ran, which another process's load does not change. `command` and `args` are the
 * runner's (`node vitest.mjs run ...`).
 */
export function countedRun(name, command, args, options) {
  const dir = mkdtempSync(join(tmpdir(), `mockyard-counted-${name}-`))
  try {
    const valgrind = ['--tool=cachegrind', '--cache-sim=no', '--branch-sim=no', '--trace-children=yes', `--cachegrind-out-file=${dir}/out.%p`, command, ...args]
    const result = spawnSync('valgrind', valgrind, { ...options, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    if (result.status !== 0) {
      console.error(result.stdout, result.stderr)
      throw new Error(`the ${name} set failed under valgrind (exit ${result.status})`)
    }
    let main = 0
    let others = 0
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8')
      const count = Number(/^summary: (\d+)/m.exec(text)?.[1] ?? 0)
      // The runner's own process is the one whose command names its script (`args[0]`); the rest are its workers.
      if (/^cmd: .*/m.exec(text)?.[0].includes(args[0])) main += count
      else others += count
    }
    return { main, workers: others }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The table of a counted run: instructions per set, all processes and workers only, against `none`. */
export function printCounted({ files, runner, counted }) {
  const g = (n) => (n / 1e9).toFixed(3).padStart(7)
  console.log(`\n${files} test files, each one fetch; instructions of \`${runner}\` under cachegrind, one run of each set:`)
  console.log(`  ${'set'.padEnd(8)} ${'all (G)'.padStart(8)}  x none   ${'workers (G)'.padStart(11)}  x none   per file (M)`)
  const none = counted.none
  for (const [name, { main, workers }] of Object.entries(counted)) {
    const all = main + workers
    console.log(
      `  ${name.padEnd(8)} ${g(all)}   ${(all / (none.main + none.workers)).toFixed(3)}x   ${g(workers).padStart(11)}  ${(workers / none.workers).toFixed(3)}x   ${(workers / files / 1e6).toFixed(0).padStart(6)}`,
    )
  }
}
