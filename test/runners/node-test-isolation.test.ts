/**
 * docs/node-test.md: under `node --test --test-isolation=none` every test file runs in one
 * process. File-level `setupMockServer()` calls then meet, and the error says how to run them;
 * inside a `describe()` each, they work.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'

const ENTRY = new URL('../../dist/node-test/index.js', import.meta.url).href
const dir = mkdtempSync(join(tmpdir(), 'mockyard-isolation-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Two test files, each with its own call, at file level or inside a describe(). */
function files(wrapped: boolean): string[] {
  return ['a', 'b'].map((name) => {
    const body = `
      const mocks = setupMockServer({ routes: { 'v1/${name}': { status: 204 }, 'v1/spare': { status: 204 } }, reportUnused: true })
      test('${name} answers', async () => assert.equal((await fetch('http://api.test/v1/${name}')).status, 204))`
    const path = join(dir, `${wrapped ? 'wrapped' : 'flat'}-${name}.test.mjs`)
    writeFileSync(path, `import assert from 'node:assert/strict'\nimport { describe, test } from 'node:test'\nimport { setupMockServer } from ${JSON.stringify(ENTRY)}\n${wrapped ? `describe('${name}', () => {${body}\n})` : body}\n`)
    return path
  })
}

const run = (paths: string[]) => spawnSync(process.execPath, ['--test', '--test-isolation=none', '--test-reporter=spec', ...paths], { cwd: dir, encoding: 'utf8', timeout: 60_000 })

it('file-level calls fail with the way out named; inside a describe() each, they pass', () => {
  const flat = run(files(false))
  expect(flat.status).not.toBe(0)
  expect(flat.stdout + flat.stderr).toContain("Under node --test --test-isolation=none all test files share one process, so each file's setupMockServer() is active at once: run with isolation (the default), or put each file's call and its tests inside a describe() block of their own.")
  // The call that failed to start reports no unused routes: it served nothing.
  expect(flat.stdout + flat.stderr).not.toContain('v1/b')
  const wrapped = run(files(true))
  expect(wrapped.status).toBe(0)
  expect(wrapped.stderr).toBe('[mockyard] 1 route was not used by any test in this file (reportUnused):\n  - v1/spare (any method)\nRemove them if no test needs them, or add a test that uses them.\n'.repeat(2))
})
