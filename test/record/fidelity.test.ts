/**
 * docs/behaviour.md, "Record, import and proxy": what `record` writes is replayed as the back end
 * answered. A real back end on loopback is recorded (startRecorder, or the CLI), then the mocks
 * it wrote are served by a real listener and asked the same requests.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startMockServer, startRecorder } from 'mockyard/node'
import { zstdCompressSync } from 'node:zlib'
import { killAll } from './support.js'

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void

let backEnd: Server
let target: string
const routes = new Map<string, Handler>()
const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-fidelity-'))
  dirs.push(dir)
  return dir
}

beforeAll(async () => {
  backEnd = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://back.end')
      const handler = routes.get(`${req.method} ${url.pathname}`)
      if (handler) return handler(req, res, body)
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end('{"error":"not here"}')
    })
  })
  await new Promise<void>((resolve) => backEnd.listen(0, '127.0.0.1', resolve))
  target = `http://127.0.0.1:${(backEnd.address() as AddressInfo).port}`
})
afterEach(() => killAll())
afterAll(async () => {
  backEnd.closeAllConnections()
  await new Promise((resolve) => backEnd.close(resolve))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** Raw bytes and headers as they came over the wire (fetch would decode a Content-Encoding). */
function raw(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    outgoing.on('error', reject)
    outgoing.end(init.body)
  })
}

/** Records `calls` through a recorder on `target` (plus its base path), and returns the folder and the log lines. */
async function recordCalls(calls: Array<(base: string) => Promise<unknown>>, options: { basePath?: string; redact?: string[] } = {}): Promise<{ out: string; lines: string[] }> {
  const out = join(tempDir(), 'mocks')
  const lines: string[] = []
  const recorder = await startRecorder({ target: target + (options.basePath ?? ''), out, port: 0, host: '127.0.0.1', redact: options.redact, onRecord: (line) => lines.push(line) })
  for (const call of calls) await call(recorder.url)
  await recorder.stop()
  return { out, lines }
}

const routesOf = (out: string) => JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8')) as Record<string, Record<string, unknown>>

/** Serves what was recorded, runs `use` against it, and stops it. */
async function replay<T>(out: string, use: (base: string) => Promise<T>): Promise<T> {
  const server = await startMockServer({ routes: join(out, 'routes.json'), data: join(out, 'data') })
  try {
    return await use(server.url)
  } finally {
    await server.stop()
  }
}

describe('sequences', () => {
  /** A back end that answers `answers` in turn on `/seq/<name>`, then records and replays as many calls. */
  async function roundTrip(name: string, answers: string[], replays = answers.length): Promise<{ recorded: string[]; replayed: string[]; written: unknown }> {
    let n = 0
    routes.set(`GET /seq/${name}`, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ v: answers[n++ % answers.length] }))
    })
    const recorded: string[] = []
    const { out } = await recordCalls(answers.map(() => async (base) => recorded.push(((await (await fetch(`${base}/seq/${name}`)).json()) as { v: string }).v)))
    const replayed = await replay(out, async (base) => {
      const seen: string[] = []
      for (let i = 0; i < replays; i++) seen.push(((await (await fetch(`${base}/seq/${name}`)).json()) as { v: string }).v)
      return seen
    })
    return { recorded, replayed, written: routesOf(out)[`seq/${name}`]!.get }
  }

  it('replays the answers in the recorded order when a repeating start is broken (A, B, A, B, B)', async () => {
    const { recorded, replayed, written } = await roundTrip('flip-then-settle', ['A', 'B', 'A', 'B', 'B'])
    expect(replayed).toEqual(recorded)
    expect((written as { response: Array<{ repeat?: number }> }).response.map((item) => item.repeat ?? 1)).toEqual([1, 1, 1, 2])
  })

  it('keeps one cycle only when every answer followed it, and the replay still matches (A, B, A, B; A, A, B, A, A, B, A)', async () => {
    const cycle = await roundTrip('alternating', ['A', 'B', 'A', 'B'], 6)
    expect(cycle.replayed).toEqual(['A', 'B', 'A', 'B', 'A', 'B'])
    expect((cycle.written as { response: unknown[] }).response).toHaveLength(2)
    const runs = await roundTrip('runs', ['A', 'A', 'B', 'A', 'A', 'B', 'A'])
    expect(runs.replayed).toEqual(runs.recorded)
    expect((runs.written as { response: Array<{ repeat?: number }> }).response.map((item) => item.repeat ?? 1)).toEqual([2, 1])
    const broken = await roundTrip('broken', ['A', 'B', 'A', 'B', 'C', 'A'])
    expect(broken.replayed).toEqual(broken.recorded)
  })
})

describe('content encodings', () => {
  it('decodes a zstd answer, so --redact reaches it; a coding it cannot decode is kept with its Content-Encoding, byte for byte, and the line says so', async () => {
    const token = 'tok-ZSTD-secret-987654'
    routes.set('GET /oauth/zstd', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' })
      res.end(zstdCompressSync(Buffer.from(JSON.stringify({ access_token: token, expires_in: 3600 }))))
    })
    const odd = Buffer.from([0x78, 0x63, 0, 1, 2, 255, 254, 0x7b])
    routes.set('GET /odd', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'x-custom' })
      res.end(odd)
    })
    const { out, lines } = await recordCalls([(b) => raw(`${b}/oauth/zstd`, { headers: { 'accept-encoding': 'zstd' } }), (b) => raw(`${b}/odd`)], { redact: ['access_token'] })
    const written = routesOf(out)
    expect(written['oauth/zstd']!.get).toEqual({ file: 'oauth-zstd.json' })
    expect(readFileSync(join(out, 'data', 'oauth-zstd.json'), 'utf8')).toBe('{"access_token":"[redacted]","expires_in":3600}')
    expect(written.odd!.get).toEqual({ file: 'odd.json', responseHeader: { 'Content-Encoding': 'x-custom' } })
    expect(lines.find((line) => line.startsWith('GET /odd '))).toMatch(/body kept x-custom-encoded: mockyard cannot decode x-custom; --redact could not search it/)
    await replay(out, async (base) => {
      const zstd = await raw(`${base}/oauth/zstd`, { headers: { 'accept-encoding': 'zstd' } })
      expect(zstd.headers['content-encoding']).toBeUndefined()
      expect(JSON.parse(zstd.body.toString('utf8'))).toEqual({ access_token: '[redacted]', expires_in: 3600 })
      const kept = await raw(`${base}/odd`)
      expect(kept.headers['content-encoding']).toBe('x-custom')
      expect(kept.body.equals(odd)).toBe(true)
    })
  })
})

describe('Location', () => {
  it('with --target on a base path, a path-absolute Location (/api/new) is written on the mock (/new), and following it there answers', async () => {
    routes.set('GET /api/old', (_req, res) => void res.writeHead(301, { location: '/api/new' }).end())
    routes.set('POST /api/items', (_req, res) => void res.writeHead(201, { location: '/api/items/42', 'content-type': 'application/json' }).end('{"id":42}'))
    routes.set('GET /api/new', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"new":true}'))
    routes.set('GET /api/items/42', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":42}'))
    const { out } = await recordCalls([(b) => raw(`${b}/old`), (b) => raw(`${b}/items`, { method: 'POST' }), (b) => raw(`${b}/new`), (b) => raw(`${b}/items/42`)], { basePath: '/api' })
    const written = routesOf(out)
    expect(written.old!.get).toEqual({ status: 301, url: '/new' })
    expect(written.items!.post).toMatchObject({ status: 201, responseHeader: { Location: '/items/42' } })
    await replay(out, async (base) => {
      expect(await (await fetch(`${base}/old`)).json()).toEqual({ new: true })
      const created = await fetch(`${base}/items`, { method: 'POST' })
      expect(await (await fetch(new URL(created.headers.get('location')!, base))).json()).toEqual({ id: 42 })
    })
  })

  it('--redact access_token: a Location carrying it in its query or fragment is written without it', async () => {
    const secret = 'SECRET-loc-token-4471'
    routes.set('GET /login', (_req, res) => void res.writeHead(302, { location: `/callback?access_token=${secret}&state=xyz` }).end())
    routes.set('GET /implicit', (_req, res) => void res.writeHead(303, { location: `https://app.example/done#access_token=${secret}x`, 'content-type': 'text/plain' }).end('See Other'))
    const { out } = await recordCalls([(b) => raw(`${b}/login`), (b) => raw(`${b}/implicit`)], { redact: ['access_token'] })
    const written = routesOf(out)
    expect(written.login!.get).toEqual({ url: '/callback?access_token=[redacted]&state=xyz' })
    expect(JSON.stringify(written.implicit)).toContain('#access_token=[redacted]')
    expect(readFileSync(join(out, 'routes.json'), 'utf8')).not.toContain(secret)
  })
})

describe('charset', () => {
  it('keeps a Content-Type whose charset is not the one the mock would send, so iso-8859-1 and Shift_JIS bodies replay as they were', async () => {
    const latin1 = Buffer.from('café crème', 'latin1')
    const sjis = Buffer.from([0x82, 0xb1, 0x82, 0xf1, 0x82, 0xc9, 0x82, 0xbf, 0x82, 0xcd])
    routes.set('GET /latin1.txt', (_req, res) => void res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(latin1))
    routes.set('GET /page', (_req, res) => void res.writeHead(200, { 'content-type': 'text/html; charset=Shift_JIS' }).end(sjis))
    routes.set('GET /utf8', (_req, res) => void res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' }).end('{"ok":true}'))
    const { out } = await recordCalls([(b) => raw(`${b}/latin1.txt`), (b) => raw(`${b}/page`), (b) => raw(`${b}/utf8`)])
    // The charset the mock sends anyway is not repeated.
    expect(routesOf(out).utf8!.get).toEqual({ file: 'utf8.json' })
    await replay(out, async (base) => {
      const text = await raw(`${base}/latin1.txt`)
      expect(text.headers['content-type']).toBe('text/plain; charset=iso-8859-1')
      expect(text.body.equals(latin1)).toBe(true)
      const page = await raw(`${base}/page`)
      expect(page.headers['content-type']).toBe('text/html; charset=Shift_JIS')
      expect(page.body.equals(sjis)).toBe(true)
    })
  })
})

describe('requests the scoring cannot tell apart', () => {
  it('{"id":1} and {"id":"1"}, ?tag=x&tag=y and ?tag=y&tag=x are one request: the replay answers each call as recorded', async () => {
    const echo: Handler = (req, res, body) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: req.url, body }))
    routes.set('POST /find', echo)
    routes.set('GET /tags', echo)
    const calls = [
      (b: string) => fetch(`${b}/find`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":1}' }),
      (b: string) => fetch(`${b}/find`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"1"}' }),
      (b: string) => fetch(`${b}/find`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":true}' }),
      (b: string) => fetch(`${b}/find`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"true"}' }),
      (b: string) => fetch(`${b}/tags?tag=x&tag=y`),
      (b: string) => fetch(`${b}/tags?tag=y&tag=x`),
    ]
    const recorded: unknown[] = []
    const { out } = await recordCalls(calls.map((call) => async (b) => recorded.push(await (await call(b)).json())))
    const replayed = await replay(out, async (base) => {
      const seen: unknown[] = []
      for (const call of calls) seen.push(await (await call(base)).json())
      return seen
    })
    expect(replayed).toEqual(recorded)
  })
})
