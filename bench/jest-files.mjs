/**
 * Per-file cost under Jest (`mockyard/jest`, the CommonJS bundle): Jest gives each test file a
 * module registry of its own, so every file evaluates its mocking library again. This script
 * writes two sets of N CommonJS test files (default 20) into one temporary project (Jest 30 and
 * installed from the registry into it, npm's cache under .tmp/npm-cache; mockyard copied from
 * `dist/` into its node_modules, as an install puts it) and times `jest` on each:
 *
 * - `none`: each file fetches a real local node:http server once (no mocking at all: the floor);
 * - `mockyard`: each file calls `setupMockServer()` of `mockyard/jest` on a 44-route config and fetches once;
 *
 * No msw set (bench/vitest-files.mjs has one): msw 2.15 and 3 depend on ES modules, which Jest
 * loads only under --experimental-vm-modules, another mode of Jest altogether.
 *
 * Interleaved rounds, the order rotating, after one warm-up run of each; the tables are those of
 * bench/vitest-files.mjs (wall time, and CPU time of `jest` and its workers).
 *
 *   npm run build && npx node bench/jest-files.mjs [--files 20] [--rounds 5] [--keep]
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
  },
})
const FILES = Number(values.files)
const ROUNDS = Number(values.rounds)
const ROUTES = 44

// The project is outside this repository's node_modules tree resolution only by its own
// node_modules: Jest is installed there (kept between runs: the install is the slow part).
const project = join(ROOT, '.tmp', 'bench-jest-files')
for (const set of ['none', 'mockyard', 'mocks']) rmSync(join(project, set), { recursive: true, force: true })
mkdirSync(project, { recursive: true })
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'bench-jest-files', private: true }))
if (!existsSync(join(project, 'node_modules', 'jest'))) {
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--cache', join(ROOT, '.tmp', 'npm-cache'), 'jest@30'], { cwd: project, stdio: 'inherit' })
}
const installed = join(project, 'node_modules', 'mockyard')
rmSync(installed, { recursive: true, force: true })
mkdirSync(installed, { recursive: true })
cpSync(join(ROOT, 'dist'), join(installed, 'dist'), { recursive: true })
cpSync(join(ROOT, 'package.json'), join(installed, 'package.json'))
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
  none: (i) => `test('fetches ${i}', async () => {
  const response = await fetch(process.env.BENCH_SERVER_URL + '/v1/resource-${i % ROUTES}')
  expect(response.status).toBe(200)
  await response.arrayBuffer()
})
`,
  mockyard: (i) => `const { setupMockServer } = require('mockyard/jest')
setupMockServer({ routes: 'mocks/routes.json' })
test('fetches ${i}', async () => {
  const response = await fetch('http://api.test/v1/resource-${i % ROUTES}')
  expect(response.status).toBe(200)
  await response.arrayBuffer()
})
`,
}
for (const [name, source] of Object.entries(sets)) {
  for (let i = 0; i < FILES; i++) write(`${name}/file-${String(i).padStart(2, '0')}.test.js`, source(i))
}

// The server the `none` set fetches (the same JSON bytes, from memory).
const bodies = new Map(Object.keys(routes).map((key, i) => [`/${key}`, JSON.stringify({ id: i })]))
const server = http.createServer((req, res) => {
  const body = bodies.get(req.url) ?? '{}'
  res.writeHead(200, { 'content-type': 'application/json' }).end(body)
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const serverUrl = `http://127.0.0.1:${server.address().port}`

/**
 * Runs one set: its wall time, and the CPU time (user + system) of `jest` and every process it
 * waited for (its workers), which bash's `times` reports for its children.
 */
function runSet(name) {
  const started = performance.now()
  const jest = join(project, 'node_modules/jest/bin/jest.js')
  const result = spawnSync('bash', ['-c', '"$0" "$1" --ci --silent --roots "$2"; status=$?; echo "@times"; times; exit $status', process.execPath, jest, `<rootDir>/${name}`], {
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

const times = { none: [], mockyard: [] }
const cpu = { none: [], mockyard: [] }
const names = Object.keys(times)
const load = () => loadavg().map((n) => n.toFixed(1)).join(' ')
const loadBefore = load()
try {
  for (const name of names) runSet(name) // warm Jest's transform cache and the file system's once per set
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
  if (!values.keep) for (const set of ['none', 'mockyard', 'mocks']) rmSync(join(project, set), { recursive: true, force: true })
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
table('Wall time of `jest`:', times)
table('CPU time (user + system) of `jest` and its workers:', cpu)
