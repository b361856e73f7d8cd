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
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadAverage, printTables, ROUTES, runRounds, startNoneServer, timedRun, writeResourceMocks } from './file-sets.mjs'

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

const routes = writeResourceMocks(write)

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

const none = await startNoneServer(routes)
const serverUrl = none.url

/** Runs one set: `jest` on its folder (file-sets.mjs, `timedRun`). */
function runSet(name) {
  const env = { ...process.env, BENCH_SET: name, BENCH_SERVER_URL: serverUrl }
  return timedRun(name, '"$0" "$1" --ci --silent --roots "$2"', [process.execPath, join(project, 'node_modules/jest/bin/jest.js'), `<rootDir>/${name}`], { cwd: project, env })
}

const loadBefore = loadAverage()
let measured
try {
  measured = runRounds(Object.keys(sets), ROUNDS, runSet)
} finally {
  none.stop()
  if (!values.keep) for (const set of ['none', 'mockyard', 'mocks']) rmSync(join(project, set), { recursive: true, force: true })
}

printTables({ files: FILES, rounds: ROUNDS, loadBefore, runner: 'jest', ...measured })
