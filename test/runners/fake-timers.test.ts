/**
 * Fake timers installed before mockyard loads (a Vitest setup file calling vi.useFakeTimers(), as
 * Jest's `fakeTimers: { enableGlobally: true }` does) never freeze a mock's latency or stream
 * (docs/behaviour.md, "Building the response"): the routes answer, where they hung until the test
 * timed out.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

it('a setup file that installs fake timers does not freeze latency or streams', () => {
  const fixture = fileURLToPath(new URL('../fixtures/vitest-fake-timers/', import.meta.url))
  const result = spawnSync('npx', ['vitest', 'run', '--config', fixture + 'vitest.config.ts', '--root', fixture], {
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    timeout: 120_000,
  })
  expect(result.stdout + result.stderr).toMatch(/Tests\s+2 passed \(2\)/)
  expect(result.status).toBe(0)
})
