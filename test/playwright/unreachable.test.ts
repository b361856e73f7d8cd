/**
 * docs/behaviour.md, "Errors and limits": an admin client (and the `mockyard` fixture) whose listener
 * cannot be reached fails once, saying which URL, why and what to do; not with the raw
 * `fetch failed` and its cause, and not a second time in the fixture's teardown. The child run
 * uses the built package (`npm run build` first).
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { createAdminClient, ListenerUnreachableError } from 'mockyard/playwright'
import { afterEach, describe, expect, it } from 'vitest'

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

const saved = process.env.MOCKYARD_URL
afterEach(() => {
  if (saved === undefined) delete process.env.MOCKYARD_URL
  else process.env.MOCKYARD_URL = saved
})

const fix = 'Start the mock server before the tests (globalSetup() from mockyard/playwright, or the CLI as a webServer entry), and check that the URL is the one it printed ("mockyard listening on ...").'

describe('an unreachable listener', () => {
  it('createAdminClient(MOCKYARD_URL): one clear error naming the variable, the reason and the fix', async () => {
    const port = await closedPort()
    const url = `http://127.0.0.1:${port}`
    process.env.MOCKYARD_URL = url
    const error = await createAdminClient(url, { session: 's' }).useRoutes({ 'v1/users': { status: 500 } }).catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(ListenerUnreachableError)
    expect((error as Error).message).toBe(`[mockyard] cannot reach MOCKYARD_URL=${url}: connect ECONNREFUSED 127.0.0.1:${port}. ${fix}`)
    expect((error as Error).cause).toBeUndefined()
    // A URL given otherwise is named as it is.
    expect(((await createAdminClient(url + '/').reset().catch((failure: unknown) => failure)) as Error).message).toContain(`cannot reach MOCKYARD_URL=${url}/:`)
    delete process.env.MOCKYARD_URL
    expect(((await createAdminClient(url).requests().catch((failure: unknown) => failure)) as Error).message).toMatch(new RegExp(`^\\[mockyard\\] cannot reach ${url}: connect ECONNREFUSED`))
  })

  it('the Playwright fixture: the test fails once with it, and the teardown adds nothing', async () => {
    const port = await closedPort()
    const config = fileURLToPath(new URL('../fixtures/playwright-unreachable/playwright.config.ts', import.meta.url))
    const result = await new Promise<{ status: number | null; output: string }>((resolve) => {
      const child = spawn('npx', ['playwright', 'test', '--config', config], { env: { ...process.env, MOCKYARD_URL: `http://127.0.0.1:${port}`, FORCE_COLOR: '0', NO_COLOR: '1' } })
      let output = ''
      child.stdout.on('data', (chunk) => (output += chunk))
      child.stderr.on('data', (chunk) => (output += chunk))
      child.on('close', (status) => resolve({ status, output }))
    })
    expect(result.status).toBe(1)
    expect(result.output).toContain('1 failed')
    expect(result.output.split(`[mockyard] cannot reach MOCKYARD_URL=http://127.0.0.1:${port}: connect ECONNREFUSED`).length - 1).toBe(1)
    expect(result.output).not.toContain('fetch failed')
  }, 60_000)
})
