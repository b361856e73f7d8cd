/**
 * docs/behaviour.md, "Options", on setupMockServer: its options are checked like every surface's
 * (an unknown option is a warning, the mocks still load), and a second setupMockServer() in the
 * same test file (a setup file and the test file) fails saying so and what to do.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { MockyardOptions } from 'mockyard/node'
import { setupMockServer } from 'mockyard/vitest'
import { captureLogs } from '../support/routes.js'

const examples = fileURLToPath(new URL('../fixtures/examples/', import.meta.url))
const logs = captureLogs()
setupMockServer({ routes: examples + 'routes.json', data: examples + 'data', latancy: 0, user: null, port: 3001, proxy: 'http://127.0.0.1:9', logProvider: logs.logProvider } as MockyardOptions)

describe('setupMockServer', () => {
  it('warns about an unknown option, names the closest one, and still serves the mocks; the listener\'s options are said to have no effect in process', async () => {
    expect(logs.warn).toEqual([
      '[mockyard] options#/latancy: unknown option "latancy", ignored. Did you mean "latency"?',
      '[mockyard] "port", "proxy" have no effect in setupMockServer(): requests are answered in process, with no port, no HTTP listener and no admin endpoints. Remove them, or serve the mocks with startMockServer() for a listener.',
    ])
    expect((await fetch('http://api.test/v1/users')).status).toBe(200)
  })

  it('called twice in one test file (setup file and test file) fails saying so, and what to do', async () => {
    const fixture = fileURLToPath(new URL('../fixtures/options-vitest/', import.meta.url))
    const result = await new Promise<{ status: number | null; output: string }>((resolve) => {
      const child = spawn('npx', ['vitest', 'run', '--config', fixture + 'vitest.config.ts', '--root', fixture, 'twice.fixture.ts'], {
        env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      })
      let output = ''
      child.stdout.on('data', (chunk) => (output += chunk))
      child.stderr.on('data', (chunk) => (output += chunk))
      child.on('close', (status) => resolve({ status, output }))
    })
    expect(result.status).toBe(1)
    expect(result.output).toContain(
      '[mockyard] setupMockServer() is already intercepting requests in this test file: it was called twice (a setup file and the test file both call it?), and only one can be active at a time. Keep one call: either in the setup file (export its handle for the tests), or in each test file.',
    )
    expect(result.output).not.toMatch(/an interception is already active; dispose\(\) it/)
  }, 60_000)
})
