/**
 * What `mockyard record` and `mockyard import` say and leave behind when things go wrong
 * (docs/behaviour.md, "Record, import and proxy"): the real CLI against a real back end on
 * loopback, and real files on disk.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createRecordWriter } from 'mockyard/node'
import { killAll, runCli, startCli } from './support.js'

let backEnd: Server
let port: number
let target: string
const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-record-messages-'))
  dirs.push(dir)
  return dir
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  req.resume()
  if (req.url === '/me') {
    res.writeHead(200, { 'content-type': 'application/json' })
    return void res.end(JSON.stringify({ authorization: req.headers.authorization ?? null }))
  }
  if (req.url === '/reset') {
    // Headers and part of the body, then the connection goes.
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{"partial":')
    return void setTimeout(() => req.socket.destroy(), 50)
  }
  if (req.url === '/big-and-stuck') {
    // 9 MB (past what the recorder keeps in memory: it spools to data/), then nothing more.
    res.writeHead(200, { 'content-type': 'application/octet-stream' })
    return void res.write(Buffer.alloc(9 * 1024 * 1024, 'a'))
  }
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end('[]')
}

beforeAll(async () => {
  backEnd = createServer(handle)
  await new Promise<void>((resolve) => backEnd.listen(0, '127.0.0.1', resolve))
  port = (backEnd.address() as AddressInfo).port
  target = `http://127.0.0.1:${port}`
})
afterEach(() => killAll())
afterAll(async () => {
  backEnd.closeAllConnections()
  await new Promise((resolve) => backEnd.close(resolve))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const text = (url: string, init?: RequestInit) => fetch(url, init).then((r) => r.text())

describe('credentials and a query in --target', () => {
  it('sends user:password as Basic auth, and never prints the password nor sends it to a client', async () => {
    const out = join(tempDir(), 'mocks')
    const cli = await startCli(['record', '--target', `http://admin:hunter2@127.0.0.1:${port}`, '--out', out, '--port', '0'])
    expect(JSON.parse(await text(`${cli.url}/me`))).toEqual({ authorization: `Basic ${Buffer.from('admin:hunter2').toString('base64')}` })
    // The request's own Authorization wins.
    expect(JSON.parse(await text(`${cli.url}/me`, { headers: { authorization: 'Bearer mine' } }))).toEqual({ authorization: 'Bearer mine' })
    expect(await cli.stop('SIGINT')).toBe(0)
    expect(cli.stderr()).toContain('recording http://admin:***@127.0.0.1')
    expect(cli.stderr()).not.toContain('hunter2')

    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const closedPort = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const down = await startCli(['record', '--target', `http://admin:hunter2@127.0.0.1:${closedPort}`, '--out', out, '--port', '0'])
    const answer = await text(`${down.url}/me`)
    expect(answer).toContain('admin:***@')
    expect(answer).not.toContain('hunter2')
    expect(await down.stop('SIGINT')).toBe(0)
    expect(down.stderr()).not.toContain('hunter2')
  })

  it('refuses a target with a query, saying why and what to give instead', () => {
    const { code, stderr } = runCli(['record', '--target', `${target}/api?key=1`, '--out', join(tempDir(), 'mocks'), '--port', '0'])
    expect(code).toBe(2)
    expect(stderr).toContain(`the target ${target}/api?key=1 has a query (?key=1)`)
    expect(stderr).toContain(`--target ${target}/api.`)
  })
})

describe('messages for common slips', () => {
  it('https:// to a port that speaks plain HTTP: the target does not speak TLS, use http://', async () => {
    const cli = await startCli(['record', '--target', `https://127.0.0.1:${port}`, '--out', join(tempDir(), 'mocks'), '--port', '0'])
    const res = await fetch(`${cli.url}/x`)
    expect(res.status).toBe(502)
    expect((await res.json()).message).toMatch(/the target https:\/\/127\.0\.0\.1:\d+ does not speak TLS on that port \(.+\)\. Use http:\/\/ in --target/)
    expect(await cli.stop('SIGINT')).toBe(0)
    expect(cli.stderr()).toMatch(/GET \/x 502 not recorded: the target does not speak TLS/)
  })

  it('a body over 50 MiB: the 413 says record takes up to 50 MiB, not to raise an option record does not have', async () => {
    const cli = await startCli(['record', '--target', target, '--out', join(tempDir(), 'mocks'), '--port', '0'])
    const answer = await new Promise<string>((resolve, reject) => {
      const outgoing = request(`${cli.url}/upload`, { method: 'POST', headers: { 'content-length': String(60_000_000) } }, (res) => {
        let body = ''
        res.on('data', (chunk: Buffer) => (body += chunk))
        res.on('end', () => resolve(body))
      })
      outgoing.on('error', reject)
      outgoing.write(Buffer.alloc(1024))
    })
    const message = (JSON.parse(answer) as { message: string }).message
    expect(message).toContain('mockyard record takes request bodies up to 50 MiB')
    expect(message).not.toContain('limit option')
    expect(await cli.stop('SIGINT')).toBe(0)
  })

  it('a HEAD that a hand-written get answers: the clash names the get key to remove', async () => {
    const out = join(tempDir(), 'mocks')
    mkdirSync(join(out, 'data'), { recursive: true })
    writeFileSync(join(out, 'routes.json'), '{"users":{"get":{"file":"users.json"}}}')
    writeFileSync(join(out, 'data', 'users.json'), '[]')
    const cli = await startCli(['record', '--target', target, '--out', out, '--port', '0'])
    await fetch(`${cli.url}/users`, { method: 'HEAD' })
    expect(await cli.stop('SIGINT')).toBe(0)
    expect(cli.stderr()).toContain(`(route "users", by its get key). Remove that route's get key to record it`)
    expect(cli.stderr()).not.toContain("head key")
  })

  it('an empty or cut short HAR: says so and to export it again, not "invalid JSON" in "the configuration"', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'empty.har'), '')
    const cut = '{"log":{"version":"1.2","entries":[{"request":{"method":"GET","url":"https://api.example.com/a"}'
    writeFileSync(join(dir, 'cut.har'), cut)
    for (const [name, what] of [['empty.har', 'the HAR file is empty (0 bytes)'], ['cut.har', `the HAR file is cut short after ${cut.length} bytes`]] as const) {
      const { code, stderr } = runCli(['import', join(dir, name), '--out', join(dir, 'mocks')])
      expect(code).toBe(1)
      expect(stderr).toContain(`cannot import ${join(dir, name)}#: ${what}`)
      expect(stderr).toContain('Export the HAR again')
      expect(stderr).not.toContain('the configuration has')
    }
  })
})

describe('an answer broken off', () => {
  it('a back end that resets mid-answer: the request gets its line and counts in the summary', async () => {
    const out = join(tempDir(), 'mocks')
    const cli = await startCli(['record', '--target', target, '--out', out, '--port', '0'])
    await fetch(`${cli.url}/reset`).then((r) => r.text()).catch(() => undefined)
    await expect.poll(() => cli.stderr()).toMatch(/GET \/reset 200 not recorded: the target broke off the answer after 11 bytes \(\w+\)/)
    expect(await cli.stop('SIGINT')).toBe(0)
    expect(cli.stderr()).toContain('1 request seen: 0 routes')
  })
})

describe('temporary files', () => {
  it('a second Ctrl+C exits at once and leaves no spooled body in data/', async () => {
    const out = join(tempDir(), 'mocks')
    const cli = await startCli(['record', '--target', target, '--out', out, '--port', '0'])
    const controller = new AbortController()
    void fetch(`${cli.url}/big-and-stuck`, { signal: controller.signal }).then((r) => r.arrayBuffer()).catch(() => undefined)
    const spooled = () => readdirSync(join(out, 'data')).filter((name) => name.endsWith('.tmp'))
    await expect.poll(spooled, { timeout: 10_000 }).toHaveLength(1)
    cli.child.kill('SIGINT')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(await cli.stop('SIGINT')).toBe(1)
    controller.abort()
    expect(spooled()).toEqual([])
  })

  it('a writer starting deletes the temporary files of recorders that are gone, never those of one still running', () => {
    const out = tempDir()
    mkdirSync(join(out, 'data'))
    // A pid that surely is gone: a process that ran and ended.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout
    const stale = [`.mockyard-${gone}-${randomUUID()}.tmp`, `.mockyard-${gone}-${randomUUID()}.tmp.clean.tmp`, `users.json.${gone}.${randomUUID()}.tmp`]
    const live = `.mockyard-${process.ppid}-${randomUUID()}.tmp`
    for (const name of [...stale, live]) writeFileSync(join(out, 'data', name), 'x')
    writeFileSync(join(out, `routes.json.${gone}.${randomUUID()}.tmp`), '{}')
    createRecordWriter({ out })
    expect(readdirSync(join(out, 'data'))).toEqual([live])
    expect(readdirSync(out).filter((name) => name.endsWith('.tmp'))).toEqual([])
    expect(existsSync(join(out, 'data', live))).toBe(true)
  })
})
