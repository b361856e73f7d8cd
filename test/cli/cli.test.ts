import type { ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { killClis, runCli, startCli } from './support.js'

const EXAMPLES = fileURLToPath(new URL('../fixtures/examples/', import.meta.url))

afterEach(killClis)

const runSync = (args: string[], cwd?: string) => runCli(args, { cwd })
const start = (args: string[], cwd?: string) => startCli(args, { cwd })

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

describe('mockyard CLI', () => {
  it('--help prints the usage and exits 0', () => {
    const { code, stdout } = runSync(['--help'])
    expect(code).toBe(0)
    expect(stdout).toContain('Usage: mockyard [options]')
    expect(stdout).toContain('--routes <file>')
    // The defaults it names are the ones applied.
    expect(stdout).toMatch(/--latency <ms> +global delay \(default 250\)\n/)
    expect(stdout).toMatch(/--limit <size> +maximum request body \(default 50mb\)\n/)
  })

  it('--version prints the package version', () => {
    const { code, stdout } = runSync(['--version'])
    expect(code).toBe(0)
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })

  it('an unknown flag exits 2 and says how to get help', () => {
    const { code, stderr } = runSync(['--frobnicate'])
    expect(code).toBe(2)
    expect(stderr).toContain('unknown flag --frobnicate')
    expect(stderr).toContain('mockyard --help')
  })

  it('a bad number or log level exits 2', () => {
    expect(runSync(['--port', 'abc']).stderr).toContain('--port takes a whole number, got "abc"')
    expect(runSync(['--port', 'abc']).code).toBe(2)
    expect(runSync(['--log', 'loud']).code).toBe(2)
  })

  it('a broken config exits 1 with every problem, its file and JSON path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockyard-cli-'))
    writeFileSync(join(dir, 'routes.json'), JSON.stringify({ 'v1/bad': { latency: 'slow', get: [{ file: '../../etc/passwd' }] } }))
    const { code, stderr } = runSync(['--routes', join(dir, 'routes.json'), '--port', '0'])
    expect(code).toBe(1)
    expect(stderr).toContain('routes.json#/v1~1bad/latency')
    expect(stderr).toContain('routes.json#/v1~1bad/get/0/file')
  })

  it('serves routes given by flags, logs each request, and stops on SIGTERM', async () => {
    const { child, url, stderr } = await start(['--routes', join(EXAMPLES, 'routes.json'), '--data', join(EXAMPLES, 'data'), '--port', '0', '--latency', '0', '--host', '127.0.0.1'])
    const res = await fetch(`${url}/v1/users`)
    expect(await res.json()).toEqual({ file: 'users.json' })
    await expect.poll(stderr).toMatch(/GET \/v1\/users 200 users\.json/)
    const exit = exited(child)
    child.kill('SIGTERM')
    expect(await exit).toBe(0)
  })

  it('stops on SIGINT too, and prints the listening line with --log silent', async () => {
    const { child, url, stderr } = await start(['--routes', join(EXAMPLES, 'routes.json'), '--port', '0', '--latency', '0', '--log', 'silent'])
    expect((await fetch(`${url}/v1/claims?status=open`)).status).toBe(200)
    const exit = exited(child)
    child.kill('SIGINT')
    expect(await exit).toBe(0)
    expect(stderr()).toBe('')
  })

  it('loads mocks/config.json from the working directory; flags override it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockyard-cli-'))
    mkdirSync(join(dir, 'mocks', 'data'), { recursive: true })
    writeFileSync(join(dir, 'mocks', 'routes.json'), JSON.stringify({ 'v1/here': { file: 'here.json' } }))
    writeFileSync(join(dir, 'mocks', 'data', 'here.json'), '{"here":true}')
    writeFileSync(join(dir, 'mocks', 'config.json'), JSON.stringify({ routes: 'routes.json', data: 'data', latency: 5000 }))
    const { url } = await start(['--port', '0', '--latency', '0'], dir)
    const started = performance.now()
    expect(await (await fetch(`${url}/v1/here`)).json()).toEqual({ here: true })
    expect(performance.now() - started).toBeLessThan(4000)
  })

  it('in a folder without mocks/config.js serves the bundled mocks and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockyard-cli-'))
    const { url, stderr } = await start(['--port', '0', '--latency', '0'], dir)
    expect((await fetch(`${url}/v1/users`)).status).toBe(200)
    expect(stderr()).toContain('serving the bundled example mocks')
  })

  it('a port in use exits 1 and suggests another', async () => {
    const { url } = await start(['--routes', join(EXAMPLES, 'routes.json'), '--port', '0', '--host', '127.0.0.1'])
    const port = new URL(url).port
    const { code, stderr } = runSync(['--routes', join(EXAMPLES, 'routes.json'), '--port', port, '--host', '127.0.0.1'])
    expect(code).toBe(1)
    expect(stderr).toContain('EADDRINUSE')
    expect(stderr).toContain('--port 0')
  })

  it('a host this machine does not have exits 1 and suggests another host, not another port', () => {
    // 192.0.2.1 is a documentation address (TEST-NET-1): no machine has it.
    const { code, stderr } = runSync(['--routes', join(EXAMPLES, 'routes.json'), '--port', '0', '--host', '192.0.2.1', '--no-watch'])
    expect(code).toBe(1)
    expect(stderr).toContain('[mockyard] cannot listen on 192.0.2.1:0: EADDRNOTAVAIL. Pick a host this machine has with --host, such as 127.0.0.1, ::1 or 0.0.0.0.')
  })
})
