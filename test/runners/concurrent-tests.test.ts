/**
 * Tests of one file that run at once share setupMockServer()'s state, which the reset after each
 * test clears (docs/behaviour.md, "Test runners"): Vitest (describe.concurrent) and node:test
 * (the concurrency option) get one warning per file naming the way out; tests one after another
 * get none.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const WARNING = "tests of this file run at once (describe.concurrent, test.concurrent or sequence.concurrent), and setupMockServer()'s state is the file's"
const occurrences = (text: string, part: string) => text.split(part).length - 1

describe('Vitest', () => {
  const fixture = fileURLToPath(new URL('../fixtures/vitest/', import.meta.url))
  const run = (...args: string[]) =>
    spawnSync('npx', ['vitest', 'run', '--config', fixture + 'vitest.config.ts', '--root', fixture, 'concurrent-tests.fixture.ts', ...args], {
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      timeout: 120_000,
    })

  it('warns once when tests of the file run at once, and not for tests one after another (a concurrent suite of one test included)', () => {
    const all = run()
    expect(all.status).toBe(0)
    expect(occurrences(all.stdout + all.stderr, WARNING)).toBe(1)
    expect(all.stdout + all.stderr).toContain('Run the tests that use the mocks one after another, or give each its own file.')
    const sequential = run('--testNamePattern', 'single|uses a route')
    expect(sequential.status).toBe(0)
    expect(sequential.stdout + sequential.stderr).not.toContain('run at once')
  })
})

describe('node:test', () => {
  const ENTRY = new URL('../../dist/node-test/index.js', import.meta.url).href
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-concurrent-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const file = (name: string, options: string) => {
    const path = join(dir, `${name}.test.mjs`)
    writeFileSync(
      path,
      `import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setupMockServer } from ${JSON.stringify(ENTRY)}
setupMockServer({ routes: { 'v1/ping': { status: 204 } } })
describe('suite', ${options}, () => {
  for (const name of ['one', 'two', 'three']) {
    test(name, async () => {
      assert.equal((await fetch('http://api.test/v1/ping')).status, 204)
      await new Promise((resolve) => setTimeout(resolve, 50))
    })
  }
})
`,
    )
    return spawnSync(process.execPath, ['--test', '--test-reporter=spec', path], { cwd: dir, encoding: 'utf8', timeout: 60_000 })
  }

  it('warns once for a suite with concurrency, and not for one without', () => {
    const concurrent = file('concurrent', '{ concurrency: 3 }')
    expect(concurrent.status).toBe(0)
    expect(occurrences(concurrent.stdout + concurrent.stderr, "tests of this file run at once (a describe() or test() with the concurrency option)")).toBe(1)
    const sequential = file('sequential', '{}')
    expect([sequential.status, sequential.stderr]).toEqual([0, ''])
  })
})
