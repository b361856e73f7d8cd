/**
 * docs/behaviour.md, "Faults" and "Signals and shutdown", with the built CLI (`npm run build`
 * first): the log line names the fault, and SIGTERM does not wait for hung requests (they are
 * not work in flight; requests in flight get up to 10 s).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { killClis, startCli } from './support.js'
import { removeTempDirs, until, writeMocks } from '../support/routes.js'

afterEach(killClis)
afterAll(removeTempDirs)

describe('mockyard with faults', () => {
  it('logs the fault in place of the status, and SIGTERM exits 0 without waiting for hung requests', { timeout: 8000 }, async () => {
    const { routes } = writeMocks({ 'v1/flaky': { fault: 'reset' }, 'v1/stuck': { fault: 'hang' } })
    const running = await startCli(['--routes', routes, '--port', '0', '--host', '127.0.0.1', '--latency', '0'])
    let output = ''
    running.child.stdout!.on('data', (chunk) => (output += chunk))
    const error = await fetch(`${running.url}/v1/flaky`).then(
      () => undefined,
      (error: TypeError & { cause?: { code?: string } }) => error,
    )
    expect(error?.cause?.code).toBe('ECONNRESET')
    const hung = [1, 2].map(() =>
      fetch(`${running.url}/v1/stuck`).then(
        () => 'answered',
        (error: TypeError) => error.name,
      ),
    )
    await until(() => (output + running.stderr()).split('GET /v1/stuck hang').length === 3, 5000, 'two hang log lines')
    expect(output + running.stderr()).toMatch(/GET \/v1\/flaky reset v1\/flaky [\d.]+ms/)
    const exited = new Promise<number | null>((resolve) => running.child.on('exit', (code) => resolve(code)))
    running.child.kill('SIGTERM')
    // With the hung requests counted as work in flight, the exit would come after 10 s, past this test's timeout.
    expect(await exited).toBe(0)
    expect(await Promise.all(hung)).toEqual(['TypeError', 'TypeError'])
  })
})
