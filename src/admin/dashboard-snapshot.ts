import type { CompiledMethod, CompiledRoute } from '../core/compile-routes.js'
import type { CompiledSocket, SocketStep } from '../core/websocket.js'
import type { RequestRecord } from '../harness/request-log.js'
import type { RoutesConfig } from '../core/types.js'
import type { Instance } from '../config/instance.js'
import { countOf } from '../core/count.js'
import { DEFAULT_BODY_LIMIT, DEFAULT_LOG_LIMIT } from '../core/defaults.js'
import { sequenceItemAt } from '../core/routes-model.js'
import { scanOperation } from '../core/graphql-operation.js'
import { graphqlPartsOf } from '../core/graphql-request.js'
import { parseQuery } from '../core/parse-request.js'
import { shownTarget } from '../forward/forward.js'

/**
 * A request as the dashboard's list shows it: the record without its headers and bodies (those
 * come with `GET /__mockyard/dashboard/requests/:id`). Fields other surfaces add to the record
 * (a `proxied` mark) pass through.
 */
export type RequestSummary = Omit<RequestRecord, 'headers' | 'body' | 'responseHeaders' | 'responseBody' | 'data'> & {
  /** The GraphQL operation of a GraphQL request (docs/behaviour.md, "GraphQL"), shown beside its path. */
  operation?: string
}

export function summarize(record: RequestRecord): RequestSummary {
  const { headers: _headers, body: _body, responseHeaders: _response, responseBody: _responseBody, data: _data, ...summary } = record
  const operation = operationOf(record)
  return operation === undefined ? summary : { ...summary, operation }
}

/**
 * The operation of a logged GraphQL request: the `operationName` sent, else the one operation
 * its document names (a body cut at the log's limit does not parse: none). A REST body with a
 * `query` field names no operation, so it shows none.
 */
function operationOf(record: RequestRecord): string | undefined {
  const method = record.method.toUpperCase()
  let body: unknown
  if (method === 'POST') {
    if (record.body === null || !(record.body.includes('"query"') || record.body.includes('"operationName"'))) return undefined
    try {
      body = JSON.parse(record.body)
    } catch {
      return undefined
    }
  } else if (method !== 'GET' || !/[?&](query|operationName)=/.test(record.url)) return undefined
  const search = record.url.indexOf('?')
  const parts = graphqlPartsOf(method, parseQuery(search === -1 ? '' : record.url.slice(search)), body)
  if (parts === undefined) return undefined
  return parts.operationName ?? (parts.document === undefined ? undefined : scanOperation(parts.document).name)
}

/** What a WebSocket step sends, in one line for the routes table: `{"type":"pong"} · close 1000`. */
function socketAnswer(step: SocketStep): string {
  const parts = step.send.map((out) => ('file' in out ? out.file : 'text' in out ? JSON.stringify(out.text) : JSON.stringify(out.json)))
  if (step.delay > 0) parts.unshift(`after ${step.delay} ms`)
  if (step.close !== undefined) parts.push(`close ${step.close}`)
  if (step.drop) parts.push('drop')
  return parts.length > 0 ? parts.join(' · ') : '(nothing)'
}

/** A route's `websocket` steps as rows of its table (method `WS`), in the order written. */
function socketRows(route: CompiledRoute): Json[] {
  let socket: CompiledSocket | undefined
  try {
    socket = route.websocket
  } catch {
    socket = undefined
  }
  if (!socket) return []
  const index = (step: SocketStep) => Number(/\d+/.exec(step.label)![0])
  return [...socket.open, ...socket.replies]
    .sort((a, b) => index(a) - index(b))
    .map((step) => ({ method: 'WS', label: step.label, conditional: step.on !== undefined, on: step.onText ?? null, answer: socketAnswer(step) }))
}

/** The options as JSON: functions and msw handlers named, not serialised. */
function describeOptions(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue
    if (name === 'handlers' && Array.isArray(value)) out[name] = countOf(value.length, 'msw handler')
    else if (typeof value === 'function') out[name] = '(function)'
    else if (name === 'routes') out[name] = (Array.isArray(value) ? value : [value]).map((item) => (typeof item === 'string' ? item : '(routes object)'))
    else if (name === 'plugins' && Array.isArray(value)) out[name] = value.map((item) => (typeof item === 'string' ? item : '(plugin object)'))
    else {
      try {
        out[name] = JSON.parse(JSON.stringify(value))
      } catch {
        out[name] = String(value)
      }
    }
  }
  return out
}

/** What the dashboard loads first: options, files, reload status and the request log. */
export function dashboardState(instance: Instance) {
  const records = instance.log.list()
  const sessions = [...new Set(records.map((r) => r.session))].sort()
  return {
    options: describeOptions(instance.options as Record<string, unknown>),
    /** What applies, given options first, then the surface's defaults. */
    effective: {
      latency: instance.options.latency ?? instance.defaults.latency,
      watch: instance.options.watch ?? instance.defaults.watch,
      limit: instance.options.limit ?? DEFAULT_BODY_LIMIT,
      requestLog: { limit: Math.max(1, Math.floor(instance.options.requestLog?.limit ?? DEFAULT_LOG_LIMIT)) },
      admin: { allowRemote: instance.options.admin?.allowRemote ?? false },
      // Where unanswered requests go, and what ${context} becomes, shape every answer too.
      ...(instance.options.proxy !== undefined ? { proxy: shownTarget(instance.options.proxy) } : {}),
      ...(instance.options.pluginContext !== undefined ? { pluginContext: instance.options.pluginContext } : {}),
      // The document each answer is checked against (docs/behaviour.md, "Traffic checked against a contract").
      ...(instance.trafficCheck !== undefined ? { validate: instance.trafficCheck.document } : {}),
    },
    configFile: instance.config.configFile ?? null,
    routesFiles: instance.config.routes.map((spec) => ({
      file: typeof spec.routes === 'string' ? spec.routes : spec.label,
      data: spec.data,
    })),
    handlers: instance.handlers.length,
    reload: { ...instance.reloads },
    log: { limit: Math.max(1, Math.floor(instance.options.requestLog?.limit ?? DEFAULT_LOG_LIMIT)), lastId: instance.log.lastId, clears: instance.log.clears },
    sessions,
    requests: records.map(summarize),
  }
}

type Json = Record<string, unknown>

/** One row for entries that answer several methods alike (a route-level `file`): `GET, POST, PUT`. */
function mergeMethods(entries: Json[]): Json[] {
  const rows = new Map<string, Json>()
  for (const entry of entries) {
    const { method, ...rest } = entry
    const key = JSON.stringify(rest)
    const row = rows.get(key)
    if (row && !entry.sequence) row.method = `${row.method as string}, ${method as string}`
    else rows.set(rows.has(key) ? `${key}#${rows.size}` : key, { ...entry })
  }
  return [...rows.values()]
}

/**
 * The route table a session sees (docs/behaviour.md, "The dashboard"): each route with its
 * methods and entries, their conditions, sequence positions for that session, which routes come
 * from overrides (everyone's, or the session's own), and which other sessions have overrides.
 */
export function dashboardRoutes(instance: Instance, session = '') {
  const { engine, overrides, sessionOverrides, overriddenSessions } = instance.inspect(session)
  const table = engine.table
  const counts = engine.sequenceCounts(session)
  const keysOf = (layers: RoutesConfig[]) => [...new Set(layers.flatMap((layer) => Object.keys(layer)))]
  const everyone = keysOf(overrides)
  const own = keysOf(sessionOverrides)
  const routes = table.routes.map((route) => {
    const methods: string[] = []
    const entries: Json[] = []
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      let compiled: CompiledMethod | undefined
      try {
        compiled = route.methods.get(method)
      } catch {
        compiled = undefined
      }
      if (!compiled) continue
      methods.push(method)
      const candidates = [...(compiled.default ? [compiled.default] : []), ...compiled.conditionals]
      for (const candidate of candidates) {
        const entry = candidate.written
        const response = candidate.response
        const item: Json = {
          method,
          label: candidate.label,
          conditional: candidate.conditional,
          file: response.file?.name ?? null,
          url: response.url ?? null,
          status: response.status ?? (response.url ? 302 : 200),
          latency: response.latency ?? null,
          headers: response.headers,
        }
        // docs/behaviour.md, "Faults": only answers that play one carry it.
        if (response.fault !== undefined) item.fault = response.fault
        // Streamed answers (docs/behaviour.md, "Streams and Server-Sent Events"): what the page shows of them.
        if (response.events) item.events = 'file' in response.events ? response.events.file.name : countOf(response.events.list.length, 'event')
        if (response.stream) item.stream = response.stream
        if (candidate.operation !== undefined) item.operation = candidate.operation
        if (entry && entry.params !== undefined) item.params = entry.params
        if (entry && entry.headers !== undefined) item.requestHeaders = entry.headers
        if (candidate.sequence) {
          const served = counts.get(`${route.key} ${method} ${candidate.label}`) ?? 0
          item.sequence = candidate.sequence.map((step) => ({ file: step.file?.name ?? null, url: step.url ?? null, status: step.status ?? 200, repeat: step.repeat, ...(step.fault !== undefined ? { fault: step.fault } : {}) }))
          item.served = served
          item.next = sequenceItemAt(served, candidate.repeats!)
        }
        entries.push(item)
      }
    }
    const socketSteps = socketRows(route)
    if (socketSteps.length > 0) methods.push('WS')
    return {
      key: route.key,
      methods,
      entries: [...mergeMethods(entries), ...socketSteps],
      override: own.includes(route.key) ? 'session' : everyone.includes(route.key) ? 'everyone' : null,
    }
  })
  // Another session's overrides do not change this table, but "no overrides in force" would be
  // wrong while one has some: they are named, for the page to point at.
  const sessions = session === '' ? [...overriddenSessions].sort() : overriddenSessions.filter((name) => name !== session).sort()
  return { session, overrides: { everyone, session: own, sessions }, routes }
}
