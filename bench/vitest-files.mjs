/**
 * Per-file cost under Vitest: Vitest isolates each test file, so every file pays for importing
 * its mocking library and loading its config. This script writes three sets of N test files
 * (default 30) into one temporary project inside this repository and times `vitest run` on each:
 *
 * - `none`: each file fetches a real local node:http server once (no mocking at all: the floor);
 * - `mockyard`: each file calls `setupMockServer()` on a 44-route config and fetches once;
 * - `msw`: each file calls msw 3's `setupServer()` with one handler and fetches once.
 *
 * The sets run interleaved for `--rounds` rounds (default 7), the order rotating every round
 * (none, mockyard, msw; then mockyard, msw, none; ...) so that no set always follows the same
 * one, after one warm-up run of each. A shared machine's load moves every set's time by 10% or
 * more from minute to minute, so the tables print the spread too: per set the min, median and
 * max and the interquartile range; the ratio of the medians to `none`; and the ratio of each
 * round to the `none` run of the same round (paired: a load change between rounds cancels out),
 * as its median and its min-max. One table for the wall time, one for the CPU time of `vitest
 * run` and its workers (steadier under load: another process's work is not counted). mockyard is loaded from `dist/` (`npm run build` first),
 * as an installed package would be.
 *
 * `--baseline DIR` adds a fourth set, `baseline`: the mockyard set's files with mockyard loaded
 * from DIR (a `dist/` built from another commit, its package.json one folder up), installed into
 * the project as `mockyard-baseline`, to compare two builds in one run.
 *
 *   npx node bench/vitest-files.mjs [--files 30] [--rounds 7] [--keep] [--baseline DIR]
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '7' },
    keep: { type: 'boolean', default: false },
    baseline: { type: 'string' },
  },
})
const FILES = Number(values.files)
const ROUNDS = Number(values.rounds)
const ROUTES = 44

// The project lives inside the repository so that `msw` and `vitest` resolve from its
// node_modules; `mockyard` (its package.json and built dist/) is copied into the project's own
// node_modules, as an install puts it: Vitest then loads it as an external dependency, natively.
const project = join(ROOT, '.tmp', 'bench-vitest-files')
rmSync(project, { recursive: true, force: true })
const installed = join(project, 'node_modules', 'mockyard')
mkdirSync(installed, { recursive: true })
cpSync(join(ROOT, 'dist'), join(installed, 'dist'), { recursive: true })
cpSync(join(ROOT, 'package.json'), join(installed, 'package.json'))
// The project's own package.json: without it, `mockyard` inside this repository would resolve to
// the repository itself (a package may import itself by name), outside node_modules, where Vitest
// transforms it instead of loading it natively as it does an installed package.
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'bench-vitest-files', private: true, type: 'module' }))
if (values.baseline) {
  const from = resolve(values.baseline)
  const baseline = join(project, 'node_modules', 'mockyard-baseline')
  mkdirSync(baseline, { recursive: true })
  cpSync(from, join(baseline, 'dist'), { recursive: true })
  const pkg = JSON.parse(readFileSync(join(from, '..', 'package.json'), 'utf8'))
  writeFileSync(join(baseline, 'package.json'), JSON.stringify({ ...pkg, name: 'mockyard-baseline' }))
}
const write = (path, text) => {
  mkdirSync(dirname(join(project, path)), { recursive: true })
  writeFileSync(join(project, path), text)
}

const routes = {}
for (let i = 0; i < ROUTES; i++) {
  routes[`v1/resource-${i}`] = i % 4 === 0
    ? { file: `resource-${i}.json`, get: [{ file: `resource-${i}-open.json`, params: { status: 'open' } }] }
    : { file: `resource-${i}.json` }
  write(`mocks/data/resource-${i}.json`, JSON.stringify({ id: i, items: Array.from({ length: 20 }, (_, n) => ({ n, name: `item ${n}` })) }))
  if (i % 4 === 0) write(`mocks/data/resource-${i}-open.json`, JSON.stringify({ id: i, open: true }))
}
write('mocks/routes.json', JSON.stringify(routes, null, 2))

const sets = {
  none: (i) => `import { expect, it } from 'vitest'
it('fetches ${i}', async () => {
  const response = await fetch(process.env.BENCH_SERVER_URL + '/v1/resource-${i % ROUTES}')
  expect(response.status).toBe(200)
  await response.arrayBuffer()
})
`,
  mockyard: (i) => `import { expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
setupMockServer({ routes: 'mocks/routes.json' })
it('fetches ${i}', async () => {
  const response = await fetch('http://api.test/v1/resource-${i % ROUTES}')
  expect(response.status).toBe(200)
  await response.arrayBuffer()
})
`,
  msw: (i) => `import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
const server = setupServer(http.get('http://api.test/v1/resource-${i % ROUTES}', () => HttpResponse.json({ id: ${i} })))
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterEach(() => server.resetHandlers())
afterAll(() => server.close())
it('fetches ${i}', async () => {
  const response = await fetch('http://api.test/v1/resource-${i % ROUTES}')
  expect(response.status).toBe(200)
  await response.arrayBuffer()
})
`,
}
if (values.baseline) sets.baseline = (i) => sets.mockyard(i).replace("from 'mockyard/vitest'", "from 'mockyard-baseline/vitest'")
for (const [name, source] of Object.entries(sets)) {
  for (let i = 0; i < FILES; i++) write(`${name}/file-${String(i).padStart(2, '0')}.test.ts`, source(i))
}
write('vitest.config.mjs', `export default { test: { include: [process.env.BENCH_SET + '/**/*.test.ts'], watch: false } }\n`)

// The server the `none` set fetches (the same JSON bytes, from memory).
const bodies = new Map(Object.keys(routes).map((key, i) => [`/${key}`, JSON.stringify({ id: i })]))
const server = http.createServer((req, res) => {
  const body = bodies.get(req.url) ?? '{}'
  res.writeHead(200, { 'content-type': 'application/json' }).end(body)
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const serverUrl = `http://127.0.0.1:${server.address().port}`

/**
 * Runs one set: its wall time, and the CPU time (user + system) of `vitest run` and every process
 * it waited for (its workers), which bash's `times` reports for its children. CPU time moves far
 * less than wall time with the machine's load, so it is the steadier figure on a shared machine.
 */
function runSet(name) {
  const started = performance.now()
  const vitest = join(ROOT, 'node_modules/.bin/vitest')
  const result = spawnSync('bash', ['-c', '"$0" run --config vitest.config.mjs --reporter=dot; status=$?; echo "@times"; times; exit $status', vitest], {
    cwd: project,
    env: { ...process.env, BENCH_SET: name, BENCH_SERVER_URL: serverUrl },
    encoding: 'utf8',
  })
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

// spawnSync blocks this process's event loop, so the `none` server must live in another process.
server.close()
const child = (await import('node:child_process')).spawn(
  process.execPath,
  ['-e', `const bodies = new Map(${JSON.stringify([...bodies])}); require('node:http').createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(bodies.get(req.url) ?? '{}')).listen(${new URL(serverUrl).port}, '127.0.0.1', () => console.log('ready'))`],
  { stdio: ['ignore', 'pipe', 'inherit'] },
)
await new Promise((resolve) => child.stdout.once('data', resolve))

const times = Object.fromEntries(Object.keys(sets).map((name) => [name, []]))
const cpu = Object.fromEntries(Object.keys(sets).map((name) => [name, []]))
const names = Object.keys(times)
const load = () => loadavg().map((n) => n.toFixed(1)).join(' ')
const loadBefore = load()
try {
  for (const name of names) runSet(name) // warm Vitest's caches and the file system's once per set
  for (let round = 0; round < ROUNDS; round++) {
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
} finally {
  child.kill()
  if (!values.keep) rmSync(project, { recursive: true, force: true })
}

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
console.log(`\n${FILES} test files, each one fetch; ${ROUNDS} interleaved rounds; load average ${loadBefore} before, ${load()} after.`)
table('Wall time of `vitest run`:', times)
table('CPU time (user + system) of `vitest run` and its workers:', cpu)
