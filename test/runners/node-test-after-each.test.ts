/**
 * docs/node-test.md: a test that made a request nothing answered fails, and the file's own
 * `afterEach` still runs for it and sees the test's requests. node:test runs no further afterEach
 * hook of a test once one throws, and setupMockServer()'s is declared first: the failure is
 * raised after them (the test's `after` hook). Runs the built file (`npm run build` first).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'

const ENTRY = new URL('../../dist/node-test/index.js', import.meta.url).href
const dir = mkdtempSync(join(tmpdir(), 'mockyard-node-test-after-each-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it("a request nothing answered fails the test, after the file's own afterEach hooks ran and saw its requests", () => {
  const file = join(dir, 'cleanup.test.mjs')
  writeFileSync(
    file,
    `import { afterEach, test } from 'node:test'
import { setupMockServer } from ${JSON.stringify(ENTRY)}

const mocks = setupMockServer({ routes: { 'v1/users': { status: 200 } } })
afterEach((t) => console.log(\`CLEANUP 1 of "\${t.name}": \${mocks.requests().map((r) => new URL(r.url).pathname).join(', ')}\`))
afterEach((t) => console.log(\`CLEANUP 2 of "\${t.name}"\`))

test('swallows an unmatched request', async () => {
  await fetch('http://api.test/v1/users')
  await fetch('http://api.test/v1/nope').catch(() => undefined)
})
test('the next test', async () => {
  await fetch('http://api.test/v1/users')
})
`,
  )
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=spec', file], { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } })
  const output = run.stdout + run.stderr
  expect(run.status).toBe(1)
  // Both of the file's hooks ran for the failing test, and the first saw its two requests.
  expect(output).toContain('CLEANUP 1 of "swallows an unmatched request": /v1/users, /v1/nope')
  expect(output).toContain('CLEANUP 2 of "swallows an unmatched request"')
  expect(output).toContain('CLEANUP 2 of "the next test"')
  expect(output).toMatch(/✖ swallows an unmatched request/)
  expect(output).toMatch(/✔ the next test/)
  expect(output).toContain('[mockyard] a request had no mock in this test:\n  [mockyard] no route answers GET /v1/nope: no route has the path /v1/nope.')
  expect(output).toContain("Add a route or a handler (mocks.use()), or set onUnhandledRequest to 'warn' or 'bypass'.")
  // Said once, in the failing test's report.
  expect(output.split('[mockyard] a request had no mock in this test:').length - 1).toBe(1)
  expect(output).toMatch(/ℹ pass 1\n/)
  expect(output).toMatch(/ℹ fail 1\n/)
})
