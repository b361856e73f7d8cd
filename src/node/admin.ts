import type { IncomingMessage, ServerResponse } from 'node:http'
import { ConfigError } from '../core/errors.js'
import { handleDashboard, isOwnOrigin } from '../dashboard/index.js'
import type { Instance } from './instance.js'
import { SESSION_HEADER } from './node-handler.js'

export const ADMIN_PREFIX = '/__mockyard/'

function isLoopback(address: string | undefined): boolean {
  if (!address) return false
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' })
  res.end(text)
}

async function readJson(req: IncomingMessage, limit = 10 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) throw new Error('body too large')
    chunks.push(chunk)
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

/**
 * The admin endpoints of the listener, under `/__mockyard/`: loopback clients only unless
 * `admin.allowRemote`; no CORS headers, and any request with an `Origin` is refused, so a web
 * page cannot drive them. A request with `x-mockyard-session` acts on that session alone.
 *
 * - `POST /__mockyard/reset`: sequences, overrides and the request log back to the start;
 * - `GET /__mockyard/requests`: `{ requests: [...] }`, oldest first;
 * - `GET /__mockyard/routes`: the routes in force (as loaded, plus overrides);
 * - `PUT /__mockyard/routes`: a routes.json-shaped body that adds or replaces routes.
 */
export async function handleAdmin(instance: Instance, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://admin')
  if (!url.pathname.startsWith(ADMIN_PREFIX)) return false
  const action = url.pathname.slice(ADMIN_PREFIX.length).replace(/\/+$/, '')
  const method = (req.method ?? 'GET').toUpperCase()
  if (!instance.options.admin?.allowRemote && !isLoopback(req.socket.remoteAddress)) {
    send(res, 403, { error: 'Forbidden', message: '[mockyard] the admin endpoints answer loopback clients only. Set admin: { allowRemote: true } to open them.' })
    return true
  }
  if (req.headers.origin !== undefined && !isOwnOrigin(req)) {
    send(res, 403, { error: 'Forbidden', message: '[mockyard] the admin endpoints refuse requests from web pages (an Origin header was sent). Call them from your test runner instead.' })
    return true
  }
  const raw = req.headers[SESSION_HEADER]
  const session = (Array.isArray(raw) ? raw[0] : raw) ?? undefined
  const allow = (methods: string) => {
    res.setHeader('allow', methods)
    send(res, 405, { error: 'Method Not Allowed', message: `[mockyard] ${ADMIN_PREFIX}${action} answers ${methods}, not ${method}.` })
    return true
  }
  if (handleDashboard(instance, action, req, res)) return true
  switch (action) {
    case 'reset':
      if (method !== 'POST') return allow('POST')
      instance.reset(session)
      send(res, 200, { reset: true, session: session ?? null })
      return true
    case 'requests':
      if (method !== 'GET') return allow('GET')
      send(res, 200, {
        requests: instance.log.list(session !== undefined ? { session } : {}).map((r) => ({
          method: r.method,
          url: r.url,
          headers: r.headers,
          body: r.body,
          route: r.route ?? null,
          entry: r.entry ?? null,
          file: r.file ?? null,
          status: r.status,
          session: r.session,
          time: r.time,
          durationMs: r.durationMs,
        })),
      })
      return true
    case 'routes':
      if (method === 'GET') {
        send(res, 200, instance.routes(session))
        return true
      }
      if (method !== 'PUT') return allow('GET, PUT')
      try {
        const body = await readJson(req)
        instance.useRoutes(body as never, session)
        send(res, 200, instance.routes(session))
      } catch (error) {
        send(res, 400, {
          error: 'Bad Request',
          message: error instanceof ConfigError ? error.message : `[mockyard] the routes body does not parse: ${(error as Error).message}. Send a routes.json-shaped JSON object.`,
          ...(error instanceof ConfigError ? { problems: error.problems } : {}),
        })
      }
      return true
    default:
      send(res, 404, { error: 'Not Found', message: `[mockyard] no admin endpoint ${url.pathname}. There are ${ADMIN_PREFIX}reset, ${ADMIN_PREFIX}requests and ${ADMIN_PREFIX}routes.` })
      return true
  }
}
