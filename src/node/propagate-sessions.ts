/**
 * Sessions across processes (docs/behaviour.md, "Sessions across processes"): an app server that
 * renders on the server (Next.js, Remix, an Express SSR server) calls the API from its own
 * process, and those calls would carry no session. `propagateSessions()` runs each incoming
 * request in its own async context holding the request's session, and adds that session as the
 * `x-mockyard-session` header to the outgoing `fetch` and `http(s)` requests made in that
 * context, for the mock listener's origins only.
 *
 * How it hooks in, and why there:
 * - incoming: `http.Server.prototype.emit` (and `https.Server`'s) for `'request'`. The
 *   `http.server.request.start` channel gives the request but runs before the handler, outside
 *   any context it could enter; `emit` is where the handler is called, whoever made the server
 *   (Next.js, Express, Vite). The request's own events (`data`, `end`) are emitted by the
 *   connection's parser: Node 24's async context frames keep the handler's context there, but
 *   with Node 22's async hooks they would run in the connection's; they are run in the
 *   session's explicitly, so callback-style body readers (Express's `json()`) keep it.
 * - outgoing `fetch`: undici's `undici:request:create` channel, once per hop (redirects make a
 *   new request each), where `request.addHeader` adds to that hop only.
 * - outgoing `http(s)`: the `http.client.request.created` channel, published before the headers
 *   are stored, where `setHeader` still works.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import diagnosticsChannel from 'node:diagnostics_channel'
import http, { type ClientRequest, type IncomingMessage } from 'node:http'
import https from 'node:https'
import { formatMessage } from '../core/errors.js'
import type { Logger } from '../core/types.js'
import { SENDABLE_SESSION, SESSION_HEADER, sessionOf } from '../harness/session.js'

/** Where the listener's URL is read from when `targets` is not given. */
const URL_VARIABLE = 'MOCKYARD_URL'

export interface PropagateSessionsOptions {
  /**
   * The mock listener's URLs (or one URL): only requests to their origins get the header.
   * Default: `MOCKYARD_URL` (several URLs may be given there separated by commas).
   */
  targets?: string[] | string
  /** Where the one warning goes when there is no target. Default: `console`. */
  logger?: Pick<Logger, 'warn'>
}

/** What `propagateSessions()` returns: `dispose()` undoes it (for tests). */
export interface PropagatedSessions {
  /** The origins that get the header (`http://127.0.0.1:4010`), empty when there is none. */
  readonly targets: readonly string[]
  /** Unhooks everything; the next `propagateSessions()` call installs afresh. */
  dispose(): void
}

/** The session of the incoming request being handled, `undefined` outside any. */
const current = new AsyncLocalStorage<string>()

/** What the calls so far installed: the targets, and the undo of the hooks once made. */
interface Installed {
  readonly handle: PropagatedSessions
  targets: string[]
  isTarget: (origin: string) => boolean
  unhook?: () => void
  warned: boolean
}

let installed: Installed | undefined

/**
 * Carries each incoming request's session (`x-mockyard-session`, else the `mockyard-session`
 * cookie) to the `fetch` and `http(s)` requests made while handling it, as the
 * `x-mockyard-session` header, for the mock listener's origins only (`MOCKYARD_URL`, or
 * `targets`). With neither, it warns once and does nothing. A second call hooks nothing again:
 * it adds the targets it names (if any are new) and returns the first call's handle.
 *
 * @example
 * // instrumentation.ts (Next.js)
 * export async function register() {
 *   if (process.env.NEXT_RUNTIME === 'nodejs') (await import('mockyard/node')).propagateSessions()
 * }
 */
export function propagateSessions(options: PropagateSessionsOptions = {}): PropagatedSessions {
  const wanted = targetOrigins(options.targets ?? process.env[URL_VARIABLE])
  const state = (installed ??= createInstalled())
  const added = wanted.filter((origin) => !state.targets.includes(origin))
  if (added.length > 0) {
    state.targets.push(...added)
    state.isTarget = targetTest(state.targets)
  }
  if (state.targets.length === 0) {
    if (!state.warned) {
      ;(options.logger ?? console).warn(
        formatMessage(
          `propagateSessions(): no mock listener to carry sessions to: set ${URL_VARIABLE} (the URL the CLI prints, "mockyard listening on ...") or pass { targets: ['http://127.0.0.1:4010'] }. Nothing is carried.`,
        ),
      )
      state.warned = true
    }
    return state.handle
  }
  state.unhook ??= hook(state)
  return state.handle
}

function createInstalled(): Installed {
  const state: Installed = {
    handle: {
      get targets() {
        return [...state.targets]
      },
      dispose() {
        state.unhook?.()
        if (installed === state) installed = undefined
      },
    },
    targets: [],
    isTarget: () => false,
    warned: false,
  }
  return state
}

/** Hooks incoming requests and both outgoing channels; returns the undo. */
function hook(state: Installed): () => void {
  const unhookIncoming = hookIncoming()
  // A subscriber's throw would reach the app as an uncaught exception: never let one out.
  const onFetch = (message: unknown) => {
    try {
      addToFetch(message as { request: UndiciRequest }, state.isTarget)
    } catch {
      // The request goes out without the header, as if it had no session.
    }
  }
  const onHttp = (message: unknown) => {
    try {
      addToClientRequest(message as { request: ClientRequest }, state.isTarget)
    } catch {
      // As above.
    }
  }
  diagnosticsChannel.subscribe('undici:request:create', onFetch)
  diagnosticsChannel.subscribe('http.client.request.created', onHttp)
  return () => {
    unhookIncoming()
    diagnosticsChannel.unsubscribe('undici:request:create', onFetch)
    diagnosticsChannel.unsubscribe('http.client.request.created', onHttp)
  }
}

// ---- incoming requests ----

type Emit = (this: unknown, ...args: unknown[]) => boolean

/** Runs every server's `'request'` handlers in the request's session context; returns the undo. */
function hookIncoming(): () => void {
  const prototypes = [http.Server.prototype, https.Server.prototype] as unknown as { emit: Emit }[]
  let active = true
  const hooks = prototypes.map((prototype) => {
    const own = Object.prototype.hasOwnProperty.call(prototype, 'emit')
    const emit = prototype.emit
    const hooked = function emitInSession(this: unknown, event: unknown, req: unknown) {
      // `arguments` as they came: no copy of them on every event of every server.
      const args = arguments as unknown as unknown[]
      if (event !== 'request' || !active) return emit.apply(this, args)
      const session = incomingSession(req as IncomingMessage)
      if (session) bindEvents(req as IncomingMessage, session)
      // Every request gets a context, '' for none: a server started inside another request's
      // handler must not lend that request's session to its own clients.
      return current.run(session, applyEmit, emit, this, args)
    }
    prototype.emit = hooked
    return { prototype, own, emit, hooked }
  })
  return () => {
    active = false
    for (const { prototype, own, emit, hooked } of hooks) {
      // Something wrapped it after us (an APM agent): leave its wrapper; ours now only passes on.
      if (prototype.emit !== hooked) continue
      if (own) prototype.emit = emit
      else delete (prototype as { emit?: Emit }).emit
    }
  }
}

/**
 * The incoming request's session: the header, else the cookie; `''` for none, and for a value
 * that could not be sent on as a header (a decoded cookie may hold control characters: sent
 * on, they would split the header).
 */
function incomingSession(req: IncomingMessage): string {
  const session = sessionOf(req.headers)
  return SENDABLE_SESSION.test(session) ? session : ''
}


/** The request's own events (body chunks, `end`) run in the session's context too. */
function bindEvents(req: IncomingMessage, session: string): void {
  const emit = req.emit as Emit
  req.emit = function emitInSession(this: unknown) {
    return current.run(session, applyEmit, emit, this, arguments as unknown as unknown[])
  } as typeof req.emit
}

/** `emit.apply(self, args)`, as a function `run` calls: no closure per event. */
function applyEmit(emit: Emit, self: unknown, args: unknown[]): boolean {
  return emit.apply(self, args)
}

// ---- outgoing requests ----

/** The part of undici's request object the `undici:request:create` channel gives. */
interface UndiciRequest {
  origin: string | URL
  headers: string[] | string
  addHeader(name: string, value: string): unknown
}

function addToFetch({ request }: { request: UndiciRequest }, isTarget: (origin: string) => boolean): void {
  const session = current.getStore()
  if (!session || !isTarget(String(request.origin)) || hasSessionHeader(request.headers)) return
  request.addHeader(SESSION_HEADER, session)
}

/** Whether undici's headers (`[name, value, ...]`, or raw `name: value\r\n` lines) already name a session. */
function hasSessionHeader(headers: string[] | string): boolean {
  if (typeof headers === 'string') return headers.toLowerCase().includes(`${SESSION_HEADER}:`)
  for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === SESSION_HEADER) return true
  return false
}

function addToClientRequest({ request }: { request: ClientRequest }, isTarget: (origin: string) => boolean): void {
  const session = current.getStore()
  if (!session) return
  const destination = clientRequestOrigin(request)
  if (destination === undefined || !isTarget(destination)) return
  if (!request.headersSent) {
    if (request.getHeader(SESSION_HEADER) === undefined) request.setHeader(SESSION_HEADER, session)
    return
  }
  // Headers given as an array are stored at once, before this channel: add the line to them.
  // Nothing is on the wire yet (the connection is made after this channel).
  const internal = request as unknown as { _header?: string }
  const head = internal._header
  if (typeof head !== 'string' || !head.endsWith('\r\n\r\n') || new RegExp(`\\r\\n${SESSION_HEADER}:`, 'i').test(head)) return
  internal._header = `${head.slice(0, -2)}${SESSION_HEADER}: ${session}\r\n\r\n`
}

/** Where a client request goes, as an origin; `undefined` when it cannot be told (a Unix socket, no Host). */
function clientRequestOrigin(request: ClientRequest): string | undefined {
  const internal = request as unknown as { socketPath?: string; _header?: string }
  if (internal.socketPath) return undefined
  const hostHeader = request.headersSent ? /\r\nhost: *([^\r\n]*)/i.exec(internal._header ?? '')?.[1] : request.getHeader('host')
  if (typeof hostHeader !== 'string' || hostHeader === '') return undefined
  try {
    const url = new URL(`${request.protocol}//${hostHeader}`)
    // The name connected to is `request.host`; the Host header gives the port.
    if (hostKey(url.hostname) !== hostKey(request.host)) return undefined
    return url.origin
  } catch {
    return undefined
  }
}

// ---- origins ----

/** The targets' origins, from the option or `MOCKYARD_URL` (comma-separated there). */
function targetOrigins(targets: string[] | string | undefined): string[] {
  const list = typeof targets === 'string' ? targets.split(',') : (targets ?? [])
  const origins: string[] = []
  for (const raw of list) {
    const text = raw.trim()
    if (text === '') continue
    let url: URL
    try {
      url = new URL(text)
    } catch {
      throw new Error(formatMessage(`propagateSessions(): target "${text}" is not a URL. Give the listener's URL as the CLI prints it, for example http://127.0.0.1:4010.`))
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(formatMessage(`propagateSessions(): target "${text}" is not an http(s) URL. Give the listener's URL, for example http://127.0.0.1:4010.`))
    origins.push(url.origin)
  }
  return origins
}

/**
 * Whether an origin (`http://127.0.0.1:4010`) is one of the targets'. The verdicts are kept per
 * origin text (an app talks to a handful of origins), so the hot path parses no URL; at most
 * 256 are kept, then the rest are worked out each time.
 */
function targetTest(targets: readonly string[]): (origin: string) => boolean {
  const keys = new Set(targets.map(originKey))
  const verdicts = new Map<string, boolean>()
  return (origin) => {
    let verdict = verdicts.get(origin)
    if (verdict === undefined) {
      try {
        verdict = keys.has(originKey(origin))
      } catch {
        verdict = false
      }
      if (verdicts.size < 256) verdicts.set(origin, verdict)
    }
    return verdict
  }
}

/** Loopback names are one host: `localhost`, `127.0.0.1` and `[::1]`. */
function hostKey(hostname: string): string {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '')
  return name === 'localhost' || name === '127.0.0.1' || name === '::1' ? 'loopback' : name
}

/** An origin as compared: protocol, host (loopback names as one) and port (the default one spelled out). */
function originKey(href: string): string {
  const url = new URL(href)
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  return `${url.protocol}//${hostKey(url.hostname)}:${port}`
}
