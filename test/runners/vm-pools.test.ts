/**
 * Vitest's vm pools (like Jest) run mockyard inside a vm context, where Node's fs answers with
 * promises of the outer realm: the engine must still take them for promises (a missing data file
 * answered 500 with "Cannot set properties of undefined" when it did not).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const fixture = fileURLToPath(new URL('../fixtures/vitest/', import.meta.url))

it.each(['vmThreads', 'vmForks'])('under --pool=%s, data files read on first use and missing ones answer as in the default pool', (pool) => {
  const result = spawnSync('npx', ['vitest', 'run', '--config', fixture + 'vitest.config.ts', '--root', fixture, `--pool=${pool}`, 'vm-realm.fixture.ts'], {
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    timeout: 120_000,
  })
  expect(result.stdout + result.stderr).toMatch(/Tests\s+2 passed \(2\)/)
  expect(result.status).toBe(0)
})
