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
 * `--instructions` counts instead of timing: each set runs once under valgrind's cachegrind
 * (default 8 files; a file takes about 20 s there), and the table gives the instructions of
 * `vitest run` with its workers, and of the workers alone, against `none`. The count does not
 * move with the machine's load, so a difference of 1% shows in one run (bench/README.md,
 * "Per-file cost under Vitest"). Needs valgrind.
 *
 *   npx node bench/vitest-files.mjs [--files 30] [--rounds 7] [--keep] [--baseline DIR] [--instructions]
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { countedRun, loadAverage, printCounted, printTables, ROUTES, runRounds, startNoneServer, timedRun, writeResourceMocks } from './file-sets.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    files: { type: 'string' },
    rounds: { type: 'string', default: '7' },
    keep: { type: 'boolean', default: false },
    baseline: { type: 'string' },
    instructions: { type: 'boolean', default: false },
  },
})
const FILES = Number(values.files ?? (values.instructions ? 8 : 30))
const ROUNDS = Number(values.rounds)

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

const routes = writeResourceMocks(write)

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

const none = await startNoneServer(routes)
const serverUrl = none.url

/** Runs one set: `vitest run` on its folder (file-sets.mjs, `timedRun`). */
function runSet(name) {
  const env = { ...process.env, BENCH_SET: name, BENCH_SERVER_URL: serverUrl }
  return timedRun(name, '"$0" run --config vitest.config.mjs --reporter=dot', [join(ROOT, 'node_modules/.bin/vitest')], { cwd: project, env })
}

/** Runs one set under cachegrind (file-sets.mjs, `countedRun`); slow tests are no failures there. */
function countSet(name) {
  const env = { ...process.env, BENCH_SET: name, BENCH_SERVER_URL: serverUrl }
  const vitest = join(ROOT, 'node_modules/vitest/vitest.mjs')
  const run = countedRun(name, process.execPath, [vitest, 'run', '--config', 'vitest.config.mjs', '--reporter=dot', '--testTimeout=600000', '--hookTimeout=600000'], { cwd: project, env })
  console.log(`${name}: ${(run.main / 1e9).toFixed(3)} G instructions in vitest, ${(run.workers / 1e9).toFixed(3)} G in its workers`)
  return run
}

const loadBefore = loadAverage()
let measured
let counted
try {
  if (values.instructions) counted = Object.fromEntries(Object.keys(sets).map((name) => [name, countSet(name)]))
  else measured = runRounds(Object.keys(sets), ROUNDS, runSet)
} finally {
  none.stop()
  if (!values.keep) rmSync(project, { recursive: true, force: true })
}

if (counted) printCounted({ files: FILES, runner: 'vitest run', counted })
else printTables({ files: FILES, rounds: ROUNDS, loadBefore, runner: 'vitest run', ...measured })
