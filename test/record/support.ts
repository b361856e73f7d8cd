import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))

/** A tiny PNG (1x1, with NUL bytes and high bytes: binary that must survive untouched). */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
export const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'), Buffer.from([0, 1, 2, 255, 254]), Buffer.from('\n%%EOF\n')])
export const SECRETS = {
  authorization: 'tok-AUTH-5f2a9c',
  cookie: 'COOKIE-sid-77c1',
  setCookie: 'SETCOOKIE-9d0e',
  apiKeyHeader: 'HDR-apikey-41b7',
  bodyPassword: 'BODY-pw-0c3d',
  responseToken: 'RESP-token-8e2f',
}

export interface App {
  url: string
  server: Server
  /** Requests it received: method and path with query. */
  seen: string[]
  close(): Promise<void>
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

/**
 * The independent back end the recorder records: a plain node:http app, no mockyard in it.
 * Every answer depends only on the request, except /api/jobs/1 (202, then 201).
 */
export async function startApp(): Promise<App> {
  const seen: string[] = []
  let jobPolls = 0
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://app.local')
    const body = await readBody(req)
    seen.push(`${req.method} ${url.pathname}${url.search}`)
    const json = (status: number, text: string, headers: Record<string, string | string[]> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(text)
    }
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /api/users':
        // Written with odd spacing on purpose: the mock must serve these very bytes.
        return json(200, '{ "users" : [ {"id": 1, "name": "Ada"} ],\n  "total": 1 }\n', { 'x-request-id': 'abc-123', date: 'Mon, 01 Jan 2024 00:00:00 GMT', etag: '"v1"' })
      case 'GET /api/search': {
        const q = url.searchParams.get('q')
        return json(200, JSON.stringify({ q, results: q === 'cats' ? ['tabby', 'siamese'] : ['beagle'] }))
      }
      case 'GET /feed.xml':
        res.writeHead(200, { 'content-type': 'application/xml' })
        return res.end('<?xml version="1.0"?>\n<feed><item id="1">Hello</item></feed>\n')
      case 'GET /img/logo.png':
        res.writeHead(200, { 'content-type': 'image/png' })
        return res.end(PNG)
      case 'GET /docs/report':
        res.writeHead(200, { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="report.pdf"' })
        return res.end(PDF)
      case 'DELETE /api/items/7':
        res.writeHead(204)
        return res.end()
      case 'GET /old-page':
        res.writeHead(302, { location: '/new-page' })
        return res.end('moved')
      case 'GET /api/jobs/1':
        jobPolls++
        if (jobPolls === 1) return json(202, '{"state":"running"}', { location: '/api/jobs/1', 'x-job-id': 'job-1' })
        return json(201, '{"state":"done","result":42}')
      case 'POST /api/upload': {
        const form = await new Response(new Uint8Array(body), { headers: { 'content-type': req.headers['content-type']! } }).formData()
        const file = form.get('file') as File
        return json(file.name.endsWith('.png') ? 201 : 200, JSON.stringify({ stored: file.name, bytes: file.size, note: form.get('note') }))
      }
      case 'GET /api/gzipped':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        return res.end(gzipSync('{"compressed":true}'))
      case 'GET /api/me': {
        const ok = req.headers.authorization === `Bearer ${SECRETS.authorization}` && req.headers['x-api-key'] === SECRETS.apiKeyHeader
        return json(ok ? 200 : 401, JSON.stringify({ user: 'ada', token: SECRETS.responseToken }), {
          'set-cookie': [`session=${SECRETS.setCookie}; Path=/; HttpOnly`],
          'x-api-key': SECRETS.apiKeyHeader,
        })
      }
      case 'POST /api/login': {
        const credentials = JSON.parse(body.toString('utf8')) as { user: string; password: string }
        return json(credentials.password === SECRETS.bodyPassword ? 200 : 403, JSON.stringify({ user: credentials.user, welcome: true }))
      }
      default:
        return json(404, JSON.stringify({ error: 'not here', path: url.pathname }))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export interface Cli {
  child: ChildProcess
  url: string
  stderr: () => string
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

const children: ChildProcess[] = []

/** Kills every CLI still running (afterEach). */
export function killAll(): void {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
}

/** Starts the built CLI and resolves once it prints its listening line. */
export function startCli(args: string[], cwd = process.cwd()): Promise<Cli> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${stderr}`)), 15_000)
    void exit.then((code) => reject(new Error(`exited with ${code}: ${stderr}`)))
    child.stdout!.on('data', (chunk) => {
      stdout += chunk
      const match = /mockyard listening on http:\/\/(\S+):(\d+)/.exec(stdout)
      if (match) {
        clearTimeout(timer)
        resolve({
          child,
          url: `http://127.0.0.1:${match[2]}`,
          stderr: () => stderr,
          stop(signal = 'SIGINT') {
            child.kill(signal)
            return exit
          },
        })
      }
    })
  })
}

export function runCli(args: string[], cwd = process.cwd(), timeout = 20_000) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** What a client saw of one answer: status, media type, body bytes, and Location. */
export interface Seen {
  status: number
  type: string
  body: Buffer
  location: string | null
}

export async function see(res: Response): Promise<Seen> {
  return {
    status: res.status,
    type: (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase(),
    body: Buffer.from(await res.arrayBuffer()),
    location: res.headers.get('location'),
  }
}

/** Every file under a folder, recursively, with its bytes. */
export function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  const out: Array<{ path: string; bytes: Buffer }> = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...filesUnder(path))
    else out.push({ path, bytes: readFileSync(path) })
  }
  return out
}
