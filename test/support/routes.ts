/**
 * Helpers of the rule tests (docs/behaviour.md, one test per rule): an engine over routes held in
 * memory, a logger that records what it is told, temporary mock folders, and raw HTTP requests
 * (for paths `fetch` would normalise and for headers it would not let through).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http, { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { compileRoutes, createEngine, fromFetchRequest, memoryFiles, type Engine, type EngineOptions, type Logger, type RoutesConfig } from 'mockyard'

export type Files = Record<string, string | Uint8Array>

/** Data files whose JSON body names the file: `named('a.json')` -> `{ 'a.json': '{"file":"a.json"}' }`. */
export function named(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, JSON.stringify({ file: name })]))
}

/** An engine over one in-memory routes file (latency 0 unless the options say otherwise). */
export function engineFor(routes: RoutesConfig, files: Files = {}, options: EngineOptions = {}): Engine {
  return createEngine(compileRoutes([{ file: 'routes.json', routes, files: memoryFiles(files) }]), options)
}

export interface Sent {
  matched: boolean
  status: number
  headers: Record<string, string>
  body: Uint8Array | string | null
  text: string
  /** The `file` field of a JSON body, when there is one. */
  file?: string
  entry?: string
  explanation?: string
}

const decoder = new TextDecoder()

/** Sends a request built by hand (`new Request`) to an engine. */
export async function send(engine: Engine, path: string, init: RequestInit & { session?: string } = {}): Promise<Sent> {
  const { session, ...requestInit } = init
  const result = await engine.handle(fromFetchRequest(new Request(`http://mock.test${path}`, requestInit)), { session })
  if (!result.matched) return { matched: false, status: 0, headers: {}, body: null, text: '', explanation: result.explanation() }
  const sent = result.response.body
  // A streamed body (`stream`, `events`) is read whole: what a client reading to the end gets.
  const body = sent instanceof ReadableStream ? new Uint8Array(await new Response(sent).arrayBuffer()) : sent
  const text = body === null ? '' : typeof body === 'string' ? body : decoder.decode(body)
  let file: string | undefined
  try {
    const parsed = JSON.parse(text) as unknown
    if (parsed && typeof parsed === 'object' && 'file' in parsed) file = String((parsed as { file: unknown }).file)
  } catch {
    // Not JSON: no file name.
  }
  return { matched: true, status: result.response.status, headers: result.response.headers, body, text, file, entry: result.info.entry }
}

/** The file that answers a request (undefined when nothing answers or the body names none). */
export async function fileOf(engine: Engine, path: string, init?: RequestInit & { session?: string }): Promise<string | undefined> {
  return (await send(engine, path, init)).file
}

export const json = (body: unknown): RequestInit => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
export const form = (body: string): RequestInit => ({ method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } })

export interface CapturedLogs {
  info: string[]
  warn: string[]
  error: string[]
  logProvider: () => Logger
}

/** A logger that keeps every message, for `logProvider`. */
export function captureLogs(): CapturedLogs {
  const info: string[] = []
  const warn: string[] = []
  const error: string[] = []
  const text = (args: unknown[]) => args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? `${a.message}\n${a.stack ?? ''}` : JSON.stringify(a))).join(' ')
  const logger: Logger = {
    log: (...args) => void info.push(text(args)),
    debug: () => undefined,
    info: (...args) => void info.push(text(args)),
    warn: (...args) => void warn.push(text(args)),
    error: (...args) => void error.push(text(args)),
  }
  return { info, warn, error, logProvider: () => logger }
}

const made: string[] = []

/** A fresh temporary folder, removed by `removeTempDirs()`. */
export function tempDir(prefix = 'mockyard-rules-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** Writes files (paths relative to `dir`, folders created as needed). */
export function writeTree(dir: string, files: Files): void {
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, content)
  }
}

export interface Mocks {
  dir: string
  /** The routes file's path. */
  routes: string
  /** The data folder (`data/` beside the routes file). */
  data: string
}

/** A temporary mocks folder: `routes.json` (an object, or text written as is) and `data/`. */
export function writeMocks(routes: unknown, files: Files = {}, dir = tempDir()): Mocks {
  const data = join(dir, 'data')
  mkdirSync(data, { recursive: true })
  writeFileSync(join(dir, 'routes.json'), typeof routes === 'string' ? routes : JSON.stringify(routes, null, 2))
  writeTree(data, files)
  return { dir, routes: join(dir, 'routes.json'), data }
}

/** `http.get` to its end: the status and body, or the error it emitted (a fault's `ECONNRESET`, a cut body). */
export function httpGet(url: string): Promise<{ status?: number; body?: string; error?: NodeJS.ErrnoException }> {
  return new Promise((resolve) => {
    // `http.get` looked up at the call: an interception in process patches the module's function.
    http
      .get(url, (res) => {
        let body = ''
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode, body }))
        res.on('error', (error) => resolve({ status: res.statusCode, error }))
      })
      .on('error', (error) => resolve({ error }))
  })
}

export interface RawResponse {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

/** An HTTP request with the path sent verbatim (no `..` resolution) and any headers. */
export function rawRequest(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array; agent?: Agent | false } = {},
): Promise<RawResponse> {
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers: options.headers, agent: options.agent ?? false },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

/** Polls until `check` returns true (or throws on timeout with the last value seen). */
export async function until(check: () => Promise<boolean> | boolean, timeout = 5000, what = 'the condition'): Promise<void> {
  const started = Date.now()
  for (;;) {
    if (await check()) return
    if (Date.now() - started > timeout) throw new Error(`${what} did not hold within ${timeout} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Milliseconds an async call takes, with its result. */
export async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now()
  const value = await run()
  return { ms: performance.now() - started, value }
}

export function accessControlHeaders(headers: Record<string, string> | IncomingHttpHeaders | Headers): string[] {
  const names = headers instanceof Headers ? [...headers.keys()] : Object.keys(headers)
  return names.filter((name) => name.toLowerCase().startsWith('access-control-'))
}
