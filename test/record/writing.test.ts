/**
 * What `mockyard record` writes, run the way a user meets it: the real CLI records a real back end
 * on loopback, then the CLI serves what it wrote and every answer is checked.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createGzip } from 'node:zlib'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { filesUnder, killAll, startCli, type Cli } from './support.js'

const TOKEN = 'tok-Secret-7f3e91'
const API_KEY = 'key-Hidden-2b8c44'
const FORM_TOKEN = 'gho_Form4Token9a1d'
const BIG = 20 * 1024 * 1024

let backEnd: Server
let target: string
const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-writing-'))
  dirs.push(dir)
  return dir
}

/** A large body with the token right across the 1 MB boundary the scrubber reads by. */
function bigBody(): Buffer {
  const body = Buffer.alloc(BIG, 'a')
  body.write(TOKEN, 1024 * 1024 - 5)
  body.write(TOKEN, BIG - TOKEN.length - 1)
  return body
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://back.end')
  const auth = req.headers.authorization ?? ''
  const send = (status: number, type: string, body: string | Buffer) => {
    res.writeHead(status, { 'content-type': type })
    res.end(body)
  }
  if (url.pathname === '/users') {
    const role = url.searchParams.get('role')
    return send(200, 'application/json', JSON.stringify(role === 'admin' ? [{ id: 1, role: 'admin' }] : [{ id: 1 }, { id: 2 }]))
  }
  if (url.pathname === '/echo.ndjson') return send(200, 'application/x-ndjson', `{"auth":"${auth}"}\n{"key":"${url.searchParams.get('apiKey')}"}\n`)
  if (url.pathname === '/echo.yaml') return send(200, 'application/yaml', `auth: ${auth}\ncookie: ${req.headers.cookie}\n`)
  if (url.pathname === '/echo.bin') return send(200, 'application/octet-stream', Buffer.concat([Buffer.from([0, 255, 1]), Buffer.from(auth), Buffer.from([2, 254])]))
  if (url.pathname === '/oauth/token') return send(200, 'application/x-www-form-urlencoded', `access_token=${FORM_TOKEN}&scope=repo&token_type=bearer`)
  if (url.pathname.startsWith('/v1/sessions/')) return send(200, 'application/json', '{"session":"open"}')
  if (url.pathname === '/v1/files/:name') return send(200, 'text/plain', 'the file named ":name"')
  if (url.pathname === '/v1/glob/*') return send(200, 'text/plain', 'the star')
  if (url.pathname === '/weird') {
    res.writeHead(999, { 'content-type': 'text/plain' })
    return void res.end('odd')
  }
  if (url.pathname === '/big') return send(200, 'application/octet-stream', bigBody())
  if (url.pathname === '/bomb') {
    // 120 MB of zeros, gzip-compressed to about 120 KB: more than a recording decodes.
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
    const gzip = createGzip()
    gzip.pipe(res)
    const zeros = Buffer.alloc(1024 * 1024)
    let left = 120
    const pump = () => {
      while (left > 0) {
        left--
        if (!gzip.write(zeros)) return void gzip.once('drain', pump)
      }
      gzip.end()
    }
    return pump()
  }
  send(200, 'application/json', '{"ok":true}')
}

beforeAll(async () => {
  backEnd = createServer(handle)
  await new Promise<void>((resolve) => backEnd.listen(0, '127.0.0.1', resolve))
  target = `http://127.0.0.1:${(backEnd.address() as AddressInfo).port}`
})
afterEach(() => killAll())
afterAll(async () => {
  backEnd.closeAllConnections()
  await new Promise((resolve) => backEnd.close(resolve))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Records with the CLI: runs `calls` through it, waits for one line per call, stops it. */
async function record(out: string, calls: Array<(base: string) => Promise<unknown>>, extra: string[] = []): Promise<string> {
  const recorder = await startCli(['record', '--target', target, '--out', out, '--port', '0', ...extra])
  for (const call of calls) await call(recorder.url)
  await expect.poll(() => recorder.stderr().split('\n').filter((l) => / -> | not recorded: /.test(l)).length, { timeout: 20_000 }).toBe(calls.length)
  expect(await recorder.stop('SIGINT')).toBe(0)
  return recorder.stderr()
}

const serve = (out: string): Promise<Cli> => startCli(['--routes', join(out, 'routes.json'), '--data', join(out, 'data'), '--latency', '0', '--port', '0', '--no-watch'])
const get = (url: string, init?: RequestInit) => fetch(url, init).then((r) => r.arrayBuffer())

describe('what record writes', () => {
  it('never keys on a cache-buster: params come from the keys that tell answers apart over every request', async () => {
    const out = join(tempDir(), 'mocks')
    // The two requests: `_` and `role` each tell them apart; only `role` may be chosen.
    await record(out, [(b) => get(`${b}/users?_=1`), (b) => get(`${b}/users?role=admin&_=2`)])
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(routes.users.get.map((e: { params: unknown }) => e.params)).toEqual([{}, { role: 'admin' }])
    const mock = await serve(out)
    // A new `_` on replay, as the app sends one every time.
    expect(await (await fetch(`${mock.url}/users?role=admin&_=99`)).json()).toEqual([{ id: 1, role: 'admin' }])
    expect(await (await fetch(`${mock.url}/users?_=100`)).json()).toEqual([{ id: 1 }, { id: 2 }])
  })

  it('writes a secret nowhere: not in NDJSON, YAML or binary bodies, not in a key or a file name', async () => {
    const out = join(tempDir(), 'mocks')
    const headers = { authorization: `Bearer ${TOKEN}`, cookie: `sid=${TOKEN}x` }
    const stderr = await record(
      out,
      [
        (b) => get(`${b}/echo.ndjson?apiKey=${API_KEY}`, { headers }),
        (b) => get(`${b}/echo.yaml`, { headers }),
        (b) => get(`${b}/echo.bin`, { headers }),
        (b) => get(`${b}/v1/sessions/${TOKEN}`, { headers }),
        (b) => get(`${b}/big`, { headers }),
      ],
      ['--redact', 'apiKey'],
    )
    expect(stderr).toMatch(/GET \/big 200 -> big get \(big\.bin\)/)
    // Not in the log either: the line shows the path with the secret segment hidden.
    expect(stderr).toContain('GET /v1/sessions/[redacted] 200 -> v1/sessions/:redacted get')
    for (const secret of [TOKEN, API_KEY]) expect(stderr).not.toContain(secret)
    const everything = filesUnder(out)
    for (const { path, bytes } of everything) {
      for (const secret of [TOKEN, API_KEY]) {
        expect(path.includes(secret), path).toBe(false)
        expect(bytes.includes(secret), `${secret} in ${path}`).toBe(false)
      }
    }
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(Object.keys(routes)).toContain('v1/sessions/:redacted')
    expect(readFileSync(join(out, 'data', routes['echo.yaml'].get.file), 'utf8')).toBe('auth: [redacted]\ncookie: [redacted]\n')
    // The large body (spooled to disk) is scrubbed across its chunk boundaries, and only there.
    const big = readFileSync(join(out, 'data', 'big.bin'))
    const expected = bigBody().toString('latin1').split(TOKEN).join('[redacted]')
    expect(big.toString('latin1') === expected).toBe(true)
    expect(readdirSync(join(out, 'data')).filter((name) => name.endsWith('.tmp'))).toEqual([])

    const mock = await serve(out)
    expect(await (await fetch(`${mock.url}/v1/sessions/another-session`)).json()).toEqual({ session: 'open' })
    expect(Buffer.from(await get(`${mock.url}/echo.bin`)).equals(Buffer.concat([Buffer.from([0, 255, 1]), Buffer.from('[redacted]'), Buffer.from([2, 254])]))).toBe(true)
  })

  it('redacts a --redact field of a form-encoded answer (an OAuth token endpoint), and so that value elsewhere', async () => {
    const out = join(tempDir(), 'mocks')
    await record(out, [(b) => get(`${b}/oauth/token`, { method: 'POST' }), (b) => get(`${b}/echo.ndjson?apiKey=${FORM_TOKEN}`)], ['--redact', 'access_token'])
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(readFileSync(join(out, 'data', routes['oauth/token'].post.file), 'utf8')).toBe('access_token=[redacted]&scope=repo&token_type=bearer')
    // The token, seen in that answer, is a secret in the next one too (an app echoing what it got).
    expect(readFileSync(join(out, 'data', routes['echo.ndjson'].get.file), 'utf8')).toBe('{"auth":""}\n{"key":"[redacted]"}\n')
    for (const { path, bytes } of filesUnder(out)) expect(bytes.includes(FORM_TOKEN), path).toBe(false)
  })

  it('keeps recorded paths literal: a recorded ":name" or "*" segment answers that path only', async () => {
    const out = join(tempDir(), 'mocks')
    await record(out, [(b) => get(`${b}/v1/files/:name`), (b) => get(`${b}/v1/glob/*`)])
    const routes = JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))
    expect(Object.keys(routes)).toEqual(['v1/files/\\:name', 'v1/glob/\\*'])
    const mock = await serve(out)
    expect(await (await fetch(`${mock.url}/v1/files/:name`)).text()).toBe('the file named ":name"')
    expect(await (await fetch(`${mock.url}/v1/glob/*`)).text()).toBe('the star')
    expect((await fetch(`${mock.url}/v1/files/other`)).status).toBe(404)
    expect((await fetch(`${mock.url}/v1/glob/a/b`)).status).toBe(404)
  })

  it('writes only what loads: a status outside 200-599 is skipped and said, and the folder still loads and records', async () => {
    const out = join(tempDir(), 'mocks')
    const stderr = await record(out, [(b) => get(`${b}/weird`), (b) => get(`${b}/fine`)])
    expect(stderr).toMatch(/GET \/weird 999 not recorded: status 999 is not one a mock can answer \(200 to 599\)/)
    expect(JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8'))).toEqual({ fine: { get: { file: 'fine.json' } } })
    // A later recording merges into the same folder.
    await record(out, [(b) => get(`${b}/weird`), (b) => get(`${b}/users`)])
    const mock = await serve(out)
    expect(await (await fetch(`${mock.url}/fine`)).json()).toEqual({ ok: true })
    expect((await fetch(`${mock.url}/users`)).status).toBe(200)
  })

  it('does not write a decompression bomb: decoding stops at 100 MB, the client still gets every byte', async () => {
    const out = join(tempDir(), 'mocks')
    let received = 0
    const stderr = await record(out, [
      async (b) => {
        const res = await fetch(`${b}/bomb`)
        for await (const chunk of res.body!) received += chunk.length
      },
    ])
    expect(received).toBe(120 * 1024 * 1024)
    expect(stderr).toMatch(/GET \/bomb 200 not recorded: its gzip body decodes to more than 100 MB/)
    expect(readdirSync(join(out, 'data'))).toEqual([])
  })
})
