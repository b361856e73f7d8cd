/**
 * Per-file cost under Vitest: Vitest isolates each test file, so every file pays for importing
 * its mocking library and loading its config. This script writes three sets of N test files
 * (default 30) into one temporary project inside this repository and times `vitest run` on each:
 *
 * - `none`: each file fetches a real local node:http server once (no mocking at all: the floor);
 * - `mockyard`: each file calls `setupMockServer()` on a 44-route config and fetches once;
 * - `msw`: each file calls msw 3's `setupServer()` with one handler and fetches once.
 *
 * The sets run interleaved for `--rounds` rounds (default 7), their order rotated each round; the
 * table prints each set's median wall time with its spread, and the median of the per-round
 * ratios to `none` (each ratio taken within one round, so a busy spell of the machine weighs on
 * both sides of it) with their spread. mockyard is loaded from `dist/` (`npm run build` first),
 * as an installed package would be.
 *
 *   npx node bench/vitest-files.mjs [--files 30] [--rounds 7] [--keep]
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '7' },
    keep: { type: 'boolean', default: false },
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

function runSet(name) {
  const started = performance.now()
  const result = spawnSync(join(ROOT, 'node_modules/.bin/vitest'), ['run', '--config', 'vitest.config.mjs', '--reporter=dot'], {
    cwd: project,
    env: { ...process.env, BENCH_SET: name, BENCH_SERVER_URL: serverUrl },
    encoding: 'utf8',
  })
  const ms = performance.now() - started
  if (result.status !== 0) {
    console.error(result.stdout, result.stderr)
    throw new Error(`the ${name} set failed (exit ${result.status})`)
  }
  return ms
}

// spawnSync blocks this process's event loop, so the `none` server must live in another process.
server.close()
const child = (await import('node:child_process')).spawn(
  process.execPath,
  ['-e', `const bodies = new Map(${JSON.stringify([...bodies])}); require('node:http').createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(bodies.get(req.url) ?? '{}')).listen(${new URL(serverUrl).port}, '127.0.0.1', () => console.log('ready'))`],
  { stdio: ['ignore', 'pipe', 'inherit'] },
)
await new Promise((resolve) => child.stdout.once('data', resolve))

const times = { none: [], mockyard: [], msw: [] }
const names = Object.keys(times)
try {
  runSet('none') // warm Vitest's own caches once
  for (let round = 1; round <= ROUNDS; round++) {
    // Rotated: no set always runs first (after the pause) or last.
    for (const name of names.map((_, i) => names[(i + round - 1) % names.length])) {
      const ms = runSet(name)
      times[name].push(ms)
      console.log(`round ${round}: ${name.padEnd(8)} ${ms.toFixed(0)} ms`)
    }
  }
} finally {
  child.kill()
  if (!values.keep) rmSync(project, { recursive: true, force: true })
}

const median = (list) => {
  const sorted = [...list].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
/** (max - min) / median, in percent: how far apart the rounds were. */
const spread = (list) => (100 * (Math.max(...list) - Math.min(...list))) / median(list)
console.log(`\n${FILES} test files, each one fetch; ${ROUNDS} interleaved rounds (wall time of \`vitest run\`):`)
console.log(`  set        median ms  ±%    ratio to none (median of the rounds' ratios, min-max)`)
for (const [name, list] of Object.entries(times)) {
  const ratios = list.map((ms, round) => ms / times.none[round])
  console.log(
    `  ${name.padEnd(8)} ${median(list).toFixed(0).padStart(9)}  ${spread(list).toFixed(0).padStart(3)}    ${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
  )
}
