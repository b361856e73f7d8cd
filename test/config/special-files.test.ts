/**
 * A named pipe where a data file or a routes file should be (a user's folder can hold anything):
 * reading one would wait for a writer for ever. mockyard reads regular files only, so the server
 * answers, `mockyard check` ends, and the pipe is named as what it is.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { killClis, runCli, startCli } from '../cli/support.js'

const app = mkdtempSync(join(tmpdir(), 'mockyard-fifo-'))
mkdirSync(join(app, 'mocks', 'data'), { recursive: true })
writeFileSync(join(app, 'mocks', 'routes.json'), JSON.stringify({ 'v1/pipe': { file: 'pipe.json' }, 'v1/users': { file: 'users.json' } }))
writeFileSync(join(app, 'mocks', 'data', 'users.json'), '[]')
execFileSync('mkfifo', [join(app, 'mocks', 'data', 'pipe.json')])
execFileSync('mkfifo', [join(app, 'routes-pipe.json')])

afterEach(killClis)
afterAll(() => rmSync(app, { recursive: true, force: true }))

describe('a named pipe in place of a file', () => {
  it('as a data file: the server answers 404 naming the file and keeps serving the others', async () => {
    const cli = await startCli(['--routes', 'mocks/routes.json', '--data', 'mocks/data', '--port', '0', '--latency', '0'], { cwd: app })
    const pipe = await fetch(`${cli.url}/v1/pipe`, { signal: AbortSignal.timeout(10_000) })
    expect(pipe.status).toBe(404)
    expect(await pipe.text()).toContain('pipe.json')
    expect((await fetch(`${cli.url}/v1/users`)).status).toBe(200)
  })

  it('as a data file: mockyard check ends', () => {
    const result = runCli(['check', '--routes', 'mocks/routes.json', '--data', 'mocks/data'], { cwd: app })
    expect(result.code).not.toBeNull() // not killed by the helper's timeout
  })

  it('as the routes file: a load error that says it is not a regular file', () => {
    const result = runCli(['check', '--routes', 'routes-pipe.json'], { cwd: app })
    expect(result.code).toBe(1)
    expect(result.stderr + result.stdout).toContain('not a regular file')
  })
})
