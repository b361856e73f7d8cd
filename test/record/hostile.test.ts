/**
 * `mockyard record --target` and `mockyard --proxy` (real CLI processes) in front of back ends
 * that misbehave: they never answer, take huge uploads, or are the forwarder itself; clients
 * that give up; paths that try to climb out of the target's base path.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startMockServer } from 'mockyard/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { killAll, runCli, startCli, type Cli } from './support.js'

/** A back end that records what reaches it and never answers `/hang...`. */
interface Backend {
  url: string
  server: Server
  /** Method and path (with query) of every request that reached it. */
  seen: string[]
  /** Bytes of request body it read, all requests together. */
  bodyBytes: number
  /** Requests to /hang... it holds unanswered. */
  hanging: number
  /** Connections open on its side right now. */
  open: Set<Socket>
  close(): Promise<void>
}

async function startBackend(): Promise<Backend> {
  const open = new Set<Socket>()
  const backend: Backend = {
    url: '',
    server: createServer((req, res) => {
      backend.seen.push(`${req.method} ${req.url}`)
      if (req.url!.includes('/hang')) {
        backend.hanging++
        req.resume()
        return
      }
      req.on('data', (chunk: Buffer) => (backend.bodyBytes += chunk.length))
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url })))
    }),
    seen: [],
    bodyBytes: 0,
    hanging: 0,
    open,
    close: () =>
      new Promise<void>((resolve) => {
        backend.server.close(() => resolve())
        backend.server.closeAllConnections()
      }),
  }
  backend.server.on('connection', (socket: Socket) => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
  })
  await new Promise<void>((resolve) => backend.server.listen(0, '127.0.0.1', resolve))
  backend.url = `http://127.0.0.1:${(backend.server.address() as AddressInfo).port}`
  return backend
}

/** What a raw client saw: the request target is sent exactly as given (no URL normalisation). */
interface Answer {
  status: number
  headers: IncomingMessage['headers']
  body: string
}

function send(base: string, path: string, { method = 'GET', body, chunked = false }: { method?: string; body?: Buffer; chunked?: boolean } = {}): Promise<Answer> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = body && !chunked ? { 'content-length': body.byteLength } : {}
    const req = request({ host: hostname, port, path, method, headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }))
      res.on('error', reject)
    })
    req.on('error', reject)
    if (body && chunked) {
      // Several writes: no length is declared, the body arrives chunked.
      for (let at = 0; at < body.byteLength; at += 4 * 1024 * 1024) req.write(body.subarray(at, at + 4 * 1024 * 1024))
      req.end()
    } else req.end(body)
  })
}

/** A port free right now (for a listener that must be told its own port in advance). */
async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return port
}

let backend: Backend
let dir: string
let routes: string

beforeAll(async () => {
  backend = await startBackend()
  dir = mkdtempSync(join(tmpdir(), 'mockyard-hostile-'))
  routes = join(dir, 'routes.json')
  writeFileSync(routes, JSON.stringify({ 'mocked/only': { file: 'x.json' } }))
})
afterEach(() => {
  killAll()
  backend.seen.length = 0
  backend.bodyBytes = 0
  backend.hanging = 0
})
afterAll(async () => {
  await backend.close()
  rmSync(dir, { recursive: true, force: true })
})

let outs = 0
/** `mockyard record` into a fresh folder. */
function record(target: string, ...more: string[]): Promise<Cli> {
  return startCli(['record', '--target', target, '--out', join(dir, `out-${++outs}`), '--port', '0', ...more])
}

/** `mockyard --proxy` in front of the target, with one route of its own. */
function proxy(target: string, ...more: string[]): Promise<Cli> {
  return startCli(['--routes', routes, '--proxy', target, '--latency', '0', '--port', '0', '--no-watch', '--host', '127.0.0.1', ...more])
}

const SURFACES = [
  ['record --target', record],
  ['--proxy', proxy],
] as const

describe('a body over the limit is a 413 before anything is forwarded, never forwarded cut short', () => {
  const upload = Buffer.alloc(60 * 1024 * 1024, 7)

  it.each(SURFACES)('%s: a 60 MB upload, declared or chunked', async (_, start) => {
    const cli = await start(backend.url)
    for (const chunked of [false, true]) {
      const answer = await send(cli.url, '/upload', { method: 'POST', body: upload, chunked })
      expect(answer.status).toBe(413)
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'Payload Too Large', limit: 50 * 1024 * 1024 })
    }
    expect(backend.seen).toEqual([])
    expect(backend.bodyBytes).toBe(0)
    // Under the limit, the body reaches the back end whole.
    const small = await send(cli.url, '/upload', { method: 'POST', body: upload.subarray(0, 3 * 1024 * 1024) })
    expect(small.status).toBe(200)
    expect(backend.bodyBytes).toBe(3 * 1024 * 1024)
  }, 60_000)
})

describe('a forwarder pointed at itself', () => {
  it('record --target at its own address and port exits 2 before any request', async () => {
    const port = await freePort()
    const result = runCli(['record', '--target', `http://127.0.0.1:${port}/api`, '--port', String(port), '--out', join(dir, 'self')])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`the target http://127.0.0.1:${port}/api is this recorder's own address (port ${port})`)
    expect(result.stderr).toContain('Point --target at the real back end')
    expect(existsSync(join(dir, 'self', 'routes.json'))).toBe(false)
  })

  it('--proxy at its own port (by the name localhost, the listener on all interfaces) exits 2', async () => {
    const port = await freePort()
    const result = runCli(['--routes', routes, '--proxy', `http://localhost:${port}`, '--port', String(port), '--host', '0.0.0.0', '--no-watch'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`--proxy http://localhost:${port} is this server's own address (port ${port})`)
  })

  it('a loop through another proxy is cut on its first return: 508 JSON, nothing recorded', async () => {
    const proxyPort = await freePort()
    const out = join(dir, 'loop')
    // record -> mockyard --proxy -> back to the recorder.
    const recorder = await startCli(['record', '--target', `http://127.0.0.1:${proxyPort}`, '--out', out, '--port', '0'])
    const middle = await proxy(recorder.url, '--port', String(proxyPort))
    expect(middle.url).toBe(`http://127.0.0.1:${proxyPort}`)
    const answer = await send(recorder.url, '/api/users')
    expect(answer.status).toBe(508)
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'Loop Detected' })
    expect(JSON.parse(answer.body).message).toContain('came back to this recorder')
    // The first hop to the middle proxy and the one back: each request line once, no more.
    await expect.poll(recorder.stderr).toContain('GET /api/users 508 not recorded: the request came back to this recorder (a loop)')
    expect(recorder.stderr().match(/GET \/api\/users 508/g)).toHaveLength(2)
    expect(await recorder.stop('SIGTERM')).toBe(0)
    expect(recorder.stderr()).toContain('0 routes')
  })

  it('--proxy through record and back: 508 from the proxy that sent it', async () => {
    const proxyPort = await freePort()
    const recorder = await record(`http://127.0.0.1:${proxyPort}`)
    await proxy(recorder.url, '--port', String(proxyPort))
    const answer = await send(`http://127.0.0.1:${proxyPort}`, '/api/users')
    expect(answer.status).toBe(508)
    expect(JSON.parse(answer.body).message).toContain('came back to the mockyard that forwarded it')
  })
  it('startMockServer with proxy at its own URL (no start-up check there): 508 on the first return', async () => {
    const port = await freePort()
    const server = await startMockServer({ routes, port, proxy: `http://127.0.0.1:${port}` })
    try {
      const res = await fetch(`${server.url}/api/users`)
      expect(res.status).toBe(508)
      expect((await res.json()).error).toBe('Loop Detected')
      // The request and its one return, nothing more.
      expect(server.requests().map((r) => r.status)).toEqual([508, 508])
    } finally {
      await server.stop()
    }
  })
})

describe('a back end that never answers', () => {
  it('record --timeout 1: 504 JSON naming the target', async () => {
    const cli = await record(backend.url, '--timeout', '1')
    const answer = await send(cli.url, '/hang/1')
    expect(answer.status).toBe(504)
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'Gateway Timeout', target: backend.url })
    expect(JSON.parse(answer.body).message).toContain(`the target ${backend.url} did not answer in time (the target sent nothing for 1 s)`)
    await expect.poll(cli.stderr).toContain('GET /hang/1 504 not recorded: the target did not answer in time')
    await expect.poll(() => backend.open.size, { timeout: 5000 }).toBe(0)
  })

  it('--proxy: 504 JSON after the default 30 s, well within 60 s', async () => {
    const cli = await proxy(backend.url)
    const answer = await send(cli.url, '/hang/2')
    expect(answer.status).toBe(504)
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'Gateway Timeout', target: backend.url, url: '/hang/2' })
    await expect.poll(() => backend.open.size, { timeout: 5000 }).toBe(0)
  }, 60_000)

  it.each(SURFACES)('%s: SIGTERM with a request hung on the back end exits within the 10 s grace', async (_, start) => {
    const cli = await start(backend.url)
    const client = send(cli.url, '/hang/3').catch((error: Error) => error)
    await expect.poll(() => backend.hanging, { timeout: 5000 }).toBe(1)
    expect(await cli.stop('SIGTERM')).toBe(0)
    // The client's connection was closed: it gets an error, not an answer.
    expect(await client).toBeInstanceOf(Error)
    await expect.poll(() => backend.open.size, { timeout: 5000 }).toBe(0)
  }, 30_000)

  it.each(SURFACES)('%s: 20 clients that give up release their 20 upstream connections', async (_, start) => {
    const cli = await start(backend.url)
    const { port } = new URL(cli.url)
    const clients = Array.from({ length: 20 }, (_, i) => {
      const req = request({ host: '127.0.0.1', port, path: `/hang/${i}`, agent: false })
      req.on('error', () => undefined)
      req.end()
      return req
    })
    await expect.poll(() => backend.hanging, { timeout: 10_000 }).toBe(20)
    expect(backend.open.size).toBe(20)
    for (const req of clients) req.destroy()
    await expect.poll(() => backend.open.size, { timeout: 10_000 }).toBe(0)
    // The forwarder keeps serving.
    expect((await send(cli.url, '/still/here')).status).toBe(200)
  }, 30_000)
})

describe('a target with a base path: requests stay under it', () => {
  const climbing = ['/%2e%2e/secret', '/../secret', '/.%2e/secret', '/%2E%2E/secret', '/a/../../secret', '/..%2fsecret', '/..\\secret', '/../secret?x=1', '/..']

  it.each(SURFACES)('%s: dot segments, plain or percent-encoded, that leave the base path are a 400 and reach nothing', async (_, start) => {
    const cli = await start(`${backend.url}/base`)
    for (const path of climbing) {
      const answer = await send(cli.url, path)
      expect(answer.status, path).toBe(400)
      const body = JSON.parse(answer.body)
      expect(body.error, path).toBe('Bad Request')
      expect(body.message, path).toContain("leaves the target's base path /base")
    }
    expect(backend.seen).toEqual([])
    // Dot segments that stay inside are resolved before the join.
    expect(JSON.parse((await send(cli.url, '/a/%2e%2e/ok?q=1')).body)).toEqual({ path: '/base/ok?q=1' })
    expect(JSON.parse((await send(cli.url, '/a/./b/')).body)).toEqual({ path: '/base/a/b/' })
    expect(backend.seen).toEqual(['GET /base/ok?q=1', 'GET /base/a/b/'])
  })
})

describe('what is written', () => {
  it('a timeout and a refused path write nothing', async () => {
    const out = join(dir, 'nothing')
    const cli = await startCli(['record', '--target', `${backend.url}/base`, '--out', out, '--port', '0', '--timeout', '1'])
    await send(cli.url, '/hang')
    await send(cli.url, '/%2e%2e/x')
    expect(await cli.stop('SIGTERM')).toBe(0)
    const written = existsSync(join(out, 'routes.json')) ? JSON.parse(readFileSync(join(out, 'routes.json'), 'utf8')) : {}
    expect(written).toEqual({})
  })
})
