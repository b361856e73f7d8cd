/**
 * `mockyard/jest` and `mockyard/node-test` as a user meets them: the tarball packed from a clean
 * clone of the committed HEAD (its `prepack` builds `dist/`) installed into fresh projects, with
 * Jest from the registry, and their test files run by the runners themselves: a CommonJS Jest 30
 * project and a Jest 29 one (environments node and jest-fixed-jsdom; clients fetch, axios, Node's
 * http and XMLHttpRequest) and an ES module `node --test` project. The test files are in
 * test/fixtures/runners/; the packages they install come from npm's cache under .tmp/npm-cache
 * once it is filled (the first run downloads them).
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const FIXTURES = join(ROOT, 'test', 'fixtures', 'runners')
const NPM_CACHE = join(ROOT, '.tmp', 'npm-cache')
const folders: string[] = []
let tarball: string

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--cache', NPM_CACHE, '--prefer-offline', '--no-audit', '--no-fund'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 })
const versionOf = (name: string) => JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.resolve(`${name}/package.json`))), 'package.json'), 'utf8')).version as string

/** A folder of its own, removed after the tests. */
function folder(prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), prefix))
  folders.push(path)
  return path
}

/** A fresh project: its package.json, the fixtures' mocks and test files, and the tarball with `packages` installed. */
function project(prefix: string, manifest: object, tests: string, packages: string[]): string {
  const path = folder(prefix)
  writeFileSync(join(path, 'package.json'), JSON.stringify({ private: true, ...manifest }, null, 2))
  cpSync(join(FIXTURES, 'mocks'), join(path, 'mocks'), { recursive: true })
  cpSync(join(FIXTURES, tests), path, { recursive: true })
  npm(['install', tarball, ...packages], path)
  return path
}

beforeAll(() => {
  mkdirSync(NPM_CACHE, { recursive: true })
  const clone = folder('mockyard-clone-')
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
  execFileSync('git', ['clone', '--quiet', '--no-checkout', ROOT, clone])
  execFileSync('git', ['checkout', '--quiet', head], { cwd: clone })
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir')
  const packDir = folder('mockyard-pack-')
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', packDir], { cwd: clone, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as Array<{ filename: string }>
  tarball = join(packDir, packed[0]!.filename)
}, 300_000)

afterAll(() => {
  for (const path of folders) rmSync(path, { recursive: true, force: true })
}, 60_000)

/** The code blocks of a guide marked `<!-- run: KIND -->` (test/readme/snippets.test.ts has the markers). */
function docBlocks(doc: string, kind: string): string[] {
  const text = readFileSync(join(ROOT, doc), 'utf8')
  const blocks = [...text.matchAll(new RegExp(`<!-- run: ${kind} -->\\n^\`\`\`\\w+\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1]!)
  if (blocks.length === 0) throw new Error(`${doc} has no block marked <!-- run: ${kind} -->`)
  return blocks
}

/** The explanation mockyard gives for a GET of a path the fixtures' routes do not have, up to its list of closest routes. */
const noRoute = (path: string) => `[mockyard] no route answers GET ${path}: no route has the path ${path}.\nClosest routes:`
const occurrences = (text: string, part: string) => text.split(part).length - 1

interface JestAssertion {
  title: string
  status: 'passed' | 'failed'
  failureMessages: string[]
}

describe.each(['30', '29'])('a fresh CommonJS Jest %s project', (major) => {
  let app: string
  let results: Map<string, JestAssertion>
  let stderr: string

  beforeAll(() => {
    const packages = [`jest@${major}`, `jest-environment-jsdom@${major}`, 'jest-fixed-jsdom@0.0.11', `axios@${versionOf('axios')}`, `msw@${versionOf('msw')}`]
    app = project(`mockyard-jest${major}-`, { name: 'jest-app', scripts: { test: 'jest' } }, 'jest', packages)
    // The Jest blocks of docs/jest.md, as written, beside the fixtures.
    docBlocks('docs/jest.md', 'jest').forEach((code, index) => writeFileSync(join(app, `doc-${index}.test.js`), code))
    const jest = (args: string[], env: Record<string, string> = {}) => {
      rmSync(join(app, 'results.json'), { force: true })
      const run = spawnSync(process.execPath, [join(app, 'node_modules', 'jest', 'bin', 'jest.js'), ...args, '--ci', '--reporters=default', '--reporters=./reporter.js'], {
        cwd: app,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
        timeout: 120_000,
      })
      if (!existsSync(join(app, 'results.json'))) throw new Error(`Jest wrote no results:\n${run.stdout}\n${run.stderr}`)
      return { stderr: run.stderr, results: JSON.parse(readFileSync(join(app, 'results.json'), 'utf8')) as JestAssertion[] }
    }
    // CommonJS, as most Jest projects are; then, under Jest's ES module support, the ES module
    // file and the one that requires msw (an ES module package). Jest 29's testMatch has no .mjs.
    const commonJs = jest(['--testPathIgnorePatterns=\\.mjs$', '--testPathIgnorePatterns=msw-handlers'])
    const esm = jest(['--testMatch=**/esm.test.mjs', '--testMatch=**/msw-handlers.test.js'], { NODE_OPTIONS: '--experimental-vm-modules --no-warnings' })
    stderr = commonJs.stderr
    results = new Map([...commonJs.results, ...esm.results].map((result) => [result.title, result]))
  }, 300_000)

  const status = (title: string) => [results.get(title)?.status, results.get(title)?.failureMessages.join('\n')]
  const failure = (title: string) => {
    const result = results.get(title)
    expect(result, title).toBeDefined()
    expect(result!.status, title).toBe('failed')
    return result!.failureMessages.join('\n')
  }

  it('require() loads mockyard/jest and answers fetch, axios and Node http in the node environment, per test', () => {
    const passing = ['fetch is answered', 'axios is answered (its Node http adapter)', "Node's http is answered", 'the log starts empty in each test', 'useRoutes() overrides a route for one test', 'expectCalled() counts the requests per route']
    expect(passing.map((title) => [title, results.get(title)?.status, results.get(title)?.failureMessages.join('\n')])).toEqual(passing.map((title) => [title, 'passed', '']))
  })

  it('answers fetch, XMLHttpRequest and axios (its XHR adapter) under jest-fixed-jsdom', () => {
    const passing = ['fetch is answered in jsdom', 'XMLHttpRequest is answered', 'axios is answered (its XMLHttpRequest adapter in jsdom)']
    expect(passing.map((title) => [title, results.get(title)?.status, results.get(title)?.failureMessages.join('\n')])).toEqual(passing.map((title) => [title, 'passed', '']))
  })

  it("Jest's own jsdom environment (no fetch, no streams): the test file fails with what to do", () => {
    const [suite] = [...results.values()].filter((result) => result.title.endsWith('plain-jsdom.test.js'))
    expect(suite?.status).toBe('failed')
    expect(suite?.failureMessages.join('\n')).toMatch(/\[mockyard\] this test environment has no [\w, ]*fetch[\w, ]*, which mockyard\/jest runs on \(Jest's jsdom environment lacks them\)\. Use the environment jest-fixed-jsdom/)
  })

  it("Jest runs afterEach hooks in the order declared: the file's own afterEach still sees the test's log, and what it sends neither counts in the next test nor fails it", () => {
    const passing = ['after each: a test makes a request', "after each: the next test starts afresh, and the hook saw the test's log"]
    expect(passing.map((title) => [title, results.get(title)?.status, results.get(title)?.failureMessages.join('\n')])).toEqual(passing.map((title) => [title, 'passed', '']))
    expect(stderr).toContain(`[mockyard] a request had no mock after a test ended (in an afterEach hook):\n${noRoute('/v1/after-each-nothing')}`)
  })

  it('an ES module config under the CommonJS build fails with how to write it instead', () => {
    expect(failure('FAILS: an ES module config under require()')).toContain(
      "The config is an ES module, and require('mockyard/jest') loads it with Jest's require(), which cannot: write it as CommonJS in a .cjs file (module.exports = { ... }) and pass that path, use a config.json, or import mockyard/jest from an ES module test under Jest's ES module support.",
    )
  })

  it('an unmatched request fails the test that made it, with the explanation, once: swallowed, thrown (axios), XMLHttpRequest', () => {
    const swallowed = failure('FAILS: an unmatched request the app swallows')
    expect(swallowed).toContain(`[mockyard] a request had no mock in this test:\n${noRoute('/v1/claimz')}`)
    expect(occurrences(swallowed, noRoute('/v1/claimz'))).toBe(1)
    const thrown = failure('FAILS: an unmatched request, thrown')
    expect(thrown).toContain(noRoute('/v1/userz'))
    expect(occurrences(thrown, 'no route answers GET /v1/userz')).toBe(1)
    const xhr = failure('FAILS: an unmatched XMLHttpRequest')
    expect(xhr).toContain(noRoute('/v1/claimz'))
  })

  it('expectCalled() fails with the count and the requests made, per route', () => {
    const message = failure('FAILS: expectCalled() with another count')
    expect(message).toContain('[mockyard] expected GET v1/users to be called 2 times in this test; it was called 1 time.\nRequests in this test, per route:\n  GET v1/users: 1\n  GET v1/orders: 1')
    // The failure points at the test's line, not into mockyard's bundle.
    expect(message).toMatch(/at .*node\.test\.js:\d+:\d+/)
    expect(message).not.toContain('index.cjs')
  })

  it('Jest runs no hooks for test.concurrent tests: one warning says so, the next test starts afresh, and what they sent with no mock is a warning, not a failure of the next test', () => {
    expect(status('concurrent: the next test starts afresh, and is not failed for the request nothing answered')).toEqual(['passed', ''])
    expect(status('concurrent: a test listed before them is not failed for what they send')).toEqual(['passed', ''])
    expect(occurrences(stderr, "[mockyard] 2 tests of this file are test.concurrent, and Jest runs no beforeEach or afterEach hooks for those: setupMockServer() cannot reset between them")).toBe(1)
    expect(stderr).toContain(
      `[mockyard] a request had no mock in the test.concurrent test "concurrent concurrent: a test sends a request nothing answers, and swallows the error" (Jest runs no afterEach hook for those, so it fails no test):\n${noRoute('/v1/concurrent-nothing')}`,
    )
    expect(occurrences(stderr, 'test.concurrent')).toBe(2)
  })

  it('the Jest blocks of docs/jest.md pass', () => {
    const docs = [...results.values()].filter((result) => ['lists users', 'can override a route for one test', 'XMLHttpRequest in jsdom'].includes(result.title))
    expect(docs.map((result) => [result.title, result.status, result.failureMessages.join('\n')])).toEqual([
      ['lists users', 'passed', ''],
      ['can override a route for one test', 'passed', ''],
      ['XMLHttpRequest in jsdom', 'passed', ''],
    ])
  })

  it('import loads mockyard/jest under Jest\'s ES module support, with the same rules; msw handlers in use() there', () => {
    expect(results.get('import loads mockyard/jest and answers fetch')?.status).toBe('passed')
    // Jest 30 require()s ES modules under its ES module support; Jest 29 cannot at all.
    if (major === '30') expect(status('use() puts an msw handler in front of the routes for one test')).toEqual(['passed', ''])
    expect(failure('FAILS: an unmatched request the app swallows (ESM)')).toContain(`[mockyard] a request had no mock in this test:\n${noRoute('/v1/claimz')}`)
  })

  it('reportUnused: one warning after the file, listing the routes and methods no test used', () => {
    expect(stderr).toContain('[mockyard] 2 routes were not used by any test in this file (reportUnused):\n  - DELETE v1/orders\n  - v1/unused (any method)\n')
    expect(occurrences(stderr, 'reportUnused')).toBe(1)
  })
})

describe('a fresh node --test project (ES modules)', () => {
  let lines: Array<{ name?: string; status?: string; error?: string; stderr?: string }>

  beforeAll(() => {
    const app = project('mockyard-node-test-', { name: 'node-test-app', type: 'module', scripts: { test: 'node --test' } }, 'node-test', [`axios@${versionOf('axios')}`, `msw@${versionOf('msw')}`])
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=./reporter.mjs'], { cwd: app, encoding: 'utf8', timeout: 120_000 })
    lines = run.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line))
    if (lines.length === 0) throw new Error(`node --test reported nothing:\n${run.stderr}`)
  }, 300_000)

  const result = (name: string) => lines.find((line) => line.name === name)

  it('mockyard/node-test answers fetch and axios, per test (within describe too), from import and require()', () => {
    const passing = ['fetch is answered', 'axios is answered (its Node http adapter)', 'useRoutes() overrides a route', 'and the next test has the routes and an empty log again', 'expectCalled() counts the requests per route', 'require() loads mockyard/node-test']
    expect(passing.map((name) => [name, result(name)?.status, result(name)?.error])).toEqual(passing.map((name) => [name, 'pass', undefined]))
  })

  it("node:test runs afterEach hooks in the order declared: the file's own afterEach still sees the test's log, and what it sends neither counts in the next test nor fails it", () => {
    const passing = ['after each: a test makes a request', "after each: the next test starts afresh, and the hook saw the test's log"]
    expect(passing.map((name) => [name, result(name)?.status, result(name)?.error])).toEqual(passing.map((name) => [name, 'pass', undefined]))
    const written = lines.map((line) => line.stderr ?? '').join('')
    expect(written).toContain(`[mockyard] a request had no mock after a test ended (in an afterEach hook):\n${noRoute('/v1/after-each-nothing')}`)
  })

  it('an unmatched request fails the test that made it, with the explanation, once', () => {
    const swallowed = result('FAILS: an unmatched request the app swallows')
    expect(swallowed?.status).toBe('fail')
    expect(swallowed?.error).toContain(`[mockyard] a request had no mock in this test:\n${noRoute('/v1/claimz')}`)
    const thrown = result('FAILS: an unmatched request, thrown')
    expect(thrown?.status).toBe('fail')
    expect(thrown?.error).toContain(noRoute('/v1/userz'))
    expect(occurrences(thrown!.error!, 'no route answers')).toBe(1)
  })

  it('expectCalled() fails with the count and the requests made, per route', () => {
    const failed = result('FAILS: expectCalled() with another count')
    expect(failed?.status).toBe('fail')
    expect(failed?.error).toBe('[mockyard] expected GET v1/users to be called 2 times in this test; it was called 1 time.\nRequests in this test, per route:\n  GET v1/users: 1\n  GET v1/orders: 1')
  })

  it('reportUnused: one warning after the file, listing the routes and methods no test used', () => {
    const stderr = lines.map((line) => line.stderr ?? '').join('')
    expect(stderr).toContain('[mockyard] 2 routes were not used by any test in this file (reportUnused):\n  - DELETE v1/orders\n  - v1/unused (any method)\n')
  })
})
