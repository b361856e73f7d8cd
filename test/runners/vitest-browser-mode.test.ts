/**
 * Vitest's browser mode, as a user runs it: a Vitest run of test/fixtures/vitest-browser (the
 * Playwright provider in Chromium, found by scripts/find-chromium.mjs; the mockyard/vite plugin
 * in its config) whose test file imports `setupMockServer` from `mockyard/vitest`, resolved by the
 * `browser` export condition to the built browser entry (`npm run build` first). The worker
 * answers fetch and XMLHttpRequest; unmatched requests, expectCalled() and reportUnused behave as
 * in Node.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const FIXTURE = join(ROOT, 'test', 'fixtures', 'vitest-browser')

interface AssertionResult {
  title: string
  status: string
  failureMessages: string[]
}

let output: string
let results: Map<string, AssertionResult>
let folder: string

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'mockyard-browser-mode-'))
  const report = join(folder, 'report.json')
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', join(FIXTURE, 'vitest.config.ts'), '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    timeout: 120_000,
  })
  output = run.stdout + run.stderr
  let parsed: { testResults: Array<{ assertionResults: AssertionResult[] }> }
  try {
    parsed = JSON.parse(readFileSync(report, 'utf8'))
  } catch {
    throw new Error(`the browser-mode run wrote no report:\n${output}`)
  }
  results = new Map(parsed.testResults.flatMap((file) => file.assertionResults).map((result) => [result.title, result]))
}, 150_000)

afterAll(() => {
  if (folder) rmSync(folder, { recursive: true, force: true })
})

const status = (title: string) => [title, results.get(title)?.status, results.get(title)?.failureMessages.join('\n')]

describe("Vitest's browser mode: setupMockServer from mockyard/vitest", () => {
  it('runs in the page, answered by the service worker: fetch, XMLHttpRequest, use(), useRoutes(), a reset per test', () => {
    const passing = [
      'runs in a browser, answered by the service worker',
      'resets after each test; use() adds a handler for one test',
      'useRoutes() overrides a route for one test (an object: the page reads no files)',
      'and the next test has the routes as loaded',
      'XMLHttpRequest is answered too',
    ]
    expect(passing.map(status)).toEqual(passing.map((title) => [title, 'passed', '']))
  })

  it('an unmatched request fails the test that made it, with the explanation, once', () => {
    const [, state, message] = status('FAILS: an unmatched request the app swallows')
    expect(state).toBe('failed')
    expect(message).toContain('[mockyard] a request had no mock in this test:\n[mockyard] no route answers GET /v1/claimz: no route has the path /v1/claimz.\nClosest routes:\n  - v1/users')
    expect(output.split('no route answers GET /v1/claimz').length - 1).toBe(1)
  })

  it('expectCalled() fails with the count and the requests made, per route', () => {
    const [, state, message] = status('FAILS: expectCalled() with another count')
    expect(state).toBe('failed')
    expect(message).toContain('[mockyard] expected GET v1/users to be called 2 times in this test; it was called 0 times.\nRequests in this test, per route:\n  GET v1/orders: 1')
  })

  it('reportUnused warns once after the file', () => {
    expect(output).toContain('[mockyard] 2 routes were not used by any test in this file (reportUnused):\n  - DELETE v1/orders\n  - v1/unused (any method)\n')
  })
})
