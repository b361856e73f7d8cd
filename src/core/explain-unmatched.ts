import { closestKey } from './closest-key.js'
import { countOf, listOf } from './count.js'
import { methodOf, methodsOf, sequenceMethodOf, type Candidate, type CompiledMethod, type CompiledRoute, type RouteTable } from './compile-routes.js'
import type { GraphqlRequest } from './graphql-request.js'
import { preview } from './redact.js'
import { ROUTE_KEYS } from './validate-routes.js'
import { scoreCandidate, type RequestValues } from './match-entry.js'
import { sequenceItem, sequenceKey } from './sequence-state.js'
import type { RequestUrl } from './request-url.js'

/** A request no route answered, as the engine saw it. */
export interface UnmatchedRequest {
  /** The method the request counts as (upper case). */
  method: string
  url: RequestUrl
  /** The values its conditions were scored against, when the route has the method: why each entry is out. */
  values?: RequestValues
  /** The session the request came in (`''`: the shared one), for where its sequences stand. */
  session?: string
  /**
   * How many requests each sequence of the request's route and method had answered in that
   * session when the request came (`route METHOD label` -> count; absent: none yet).
   */
  seen?: ReadonlyMap<string, number>
  /** A WebSocket opened on the path (a GET upgrade): said of the socket, with a `websocket` route to add. */
  websocket?: boolean
}

/**
 * Where an entry's sequence stands for the request's session: the item that answers its next
 * request, and how many requests it answered. Nothing for an entry without a sequence.
 */
function sequenceLine(candidate: Candidate, key: string, request: UnmatchedRequest): string | undefined {
  const steps = candidate.sequence
  if (!steps) return undefined
  const seen = request.seen?.get(key) ?? 0
  const session = request.session ? ` in session "${request.session}"` : ''
  return `    sequence: item ${sequenceItem(candidate, seen) + 1} of ${steps.length} next, after ${seen} ${seen === 1 ? 'request' : 'requests'}${session}`
}

/**
 * Levenshtein distance, for naming the closest configured routes. The two rows are the caller's,
 * sized for the longest key and reused for every route of one explanation: no allocation per
 * route, and no buffer kept between explanations (no module state).
 */
function distance(a: string, b: string, rows: [Uint32Array, Uint32Array]): number {
  if (a === b) return 0
  let [previous, current] = rows
  for (let j = 0; j <= b.length; j++) previous[j] = j
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    const code = a.charCodeAt(i - 1)
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (code === b.charCodeAt(j - 1) ? 0 : 1))
    }
    ;[previous, current] = [current, previous]
  }
  return previous[b.length]!
}


/**
 * A route that answers no method at all (only unknown keys, or only `latency`): said plainly,
 * with the likely typo (`fiel` for `file`) when one of its keys is close to a known one.
 */
function answersNoMethod(head: string, route: CompiledRoute): string {
  const typos = (route.unknownKeys ?? []).flatMap((key) => {
    const known = closestKey(key, ROUTE_KEYS)
    return known ? [{ key, known }] : []
  })
  const guess = typos.map(({ key, known }) => `did you mean "${known}" for "${key}"?`).join(' ')
  return [
    `${head}: ${route.key} answers no method: it has no file, url or status and no method key.${guess ? ` ${guess[0]!.toUpperCase()}${guess.slice(1)}` : ''}`,
    typos.length > 0
      ? `Rename ${listOf(typos.map(({ key, known }) => `"${key}" to "${known}"`))} in "${route.key}" in your routes file.`
      : `Add a "file" (or a method key such as "get") to "${route.key}" in your routes file.`,
  ].join('\n')
}

/**
 * Explains why no route answered a request: the closest routes by path when none has it, the
 * methods a route answers when the method is wrong, and for each entry why it is out when
 * every entry is (with where its sequence stands, for an entry that has one). Ends with what to do.
 */
export function explainUnmatched(table: RouteTable, request: UnmatchedRequest): string {
  const { method, url } = request
  const head = request.websocket ? `no route answers the WebSocket opened on ${url.pathname}${url.search}` : `no route answers ${method} ${url.pathname}${url.search}`
  const found = table.lookup(url.pathname)
  if (!found) {
    const path = url.pathname.replace(/^\/+|\/+$/g, '').toLowerCase()
    const keys = table.routes.map((route) => route.key.replace(/^\/+|\/+$/g, '').toLowerCase())
    // The search costs the same whatever the path's length: only as many characters of the path
    // as the longest route key has, and a few more, are compared (a longer path is far from
    // every route anyway). docs/behaviour.md, "Requests on the wire".
    const longest = keys.reduce((most, key) => Math.max(most, key.length), 0)
    const compared = path.slice(0, longest + 8)
    const rows: [Uint32Array, Uint32Array] = [new Uint32Array(longest + 1), new Uint32Array(longest + 1)]
    // For a WebSocket, the routes that can answer one (with `websocket` steps) come first.
    const rank = (route: CompiledRoute) => (request.websocket && !route.websocket ? 1 : 0)
    const closest = table.routes
      .map((route, index) => ({ key: route.key, route, d: distance(compared, keys[index]!, rows) }))
      .sort((a, b) => rank(a.route) - rank(b.route) || a.d - b.d)
      .slice(0, 3)
    const lines = [`${head}: no route has the path ${url.pathname}.`]
    if (closest.length > 0) {
      lines.push('Closest routes:')
      for (const { key, route } of closest) {
        // A route with `websocket` steps answers WebSocket connections too (docs/behaviour.md, "WebSocket").
        const answers = route.websocket ? [...methodsOf(route), 'WebSocket'] : methodsOf(route)
        lines.push(`  - ${key} (${answers.join(', ') || 'no method'})`)
      }
    } else {
      lines.push('No routes are configured.')
    }
    const example = request.websocket ? '{ "websocket": [ { "send": "hello" } ] }' : `{ "file": "${path.split('/').pop() || 'example'}.json" }`
    lines.push(`Add a route to your routes file, for example "${path || 'v1/example'}": ${example}.`)
    return lines.join('\n')
  }
  const route = found.route
  const compiled = methodOf(route, method)
  if (!compiled || !request.values) {
    const methods = methodsOf(route)
    if (methods.length === 0) return answersNoMethod(head, route)
    return [
      `${head}: ${route.key} answers ${listOf(methods)}, not ${method}.`,
      `Add a "${method.toLowerCase()}" key (or a route-level "file") to "${route.key}" in your routes file.`,
    ].join('\n')
  }
  const graphql = request.values.graphql
  const lines = [`${head}${graphql ? ` (GraphQL ${operationText(graphql)})` : ''}: every entry of ${route.key} (${method}) is out:`]
  const reasons: string[] = []
  for (const candidate of compiled.default ? [compiled.default, ...compiled.conditionals] : compiled.conditionals) {
    reasons.length = 0
    scoreCandidate(candidate, request.values, reasons)
    lines.push(`  - ${candidate.label}: ${reasons[0] ?? 'no conditions'}`)
    const sequence = sequenceLine(candidate, sequenceKey(route.key, sequenceMethodOf(route, method), candidate.label), request)
    if (sequence) lines.push(sequence)
  }
  if (graphql) {
    lines.push(...operationLines(graphql, compiled, route.key, method))
    return lines.join('\n')
  }
  const body = request.values.body
  if (compiled.graphql && Array.isArray(body)) {
    // A batch (docs/behaviour.md, "GraphQL"): its operations are never read, so no operation entry fits.
    lines.push(
      `The body is a JSON array (a batch of ${countOf(body.length, 'operation')}): mockyard reads one GraphQL operation per request, so a batch fits no "operation" entry.`,
      `Turn batching off in the client (Apollo Client: HttpLink in place of BatchHttpLink), or add an entry without params to "${route.key}" to answer batches with a file of its own.`,
    )
    return lines.join('\n')
  }
  const type = (request.values.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (compiled.graphql && (type === 'multipart/form-data' || type === 'application/graphql')) {
    // Bodies mockyard does not read for an operation: said, rather than "no operation name".
    const what = type === 'multipart/form-data' ? 'a multipart form (a GraphQL file upload)' : 'application/graphql (a bare document)'
    lines.push(
      `The body is ${what}: mockyard reads the operation of a GraphQL request from a JSON body ({ "query", "operationName", "variables" }) or a GET's query string, so this request fits no "operation" entry.`,
      `Send it as JSON, or add an entry without params to "${route.key}" to answer it with a file of its own.`,
    )
    return lines.join('\n')
  }
  lines.push(`Add an entry without params to "${route.key}" as the default, or send a request that fits one of the entries.`)
  return lines.join('\n')
}

/** A GraphQL request's operation as explanations name it: `operation "DeletePet"`, or why it has none. */
function operationText(graphql: GraphqlRequest): string {
  return graphql.operation !== undefined ? `operation ${preview(graphql.operation)}` : `request with no operation name: the document is ${graphql.why ?? 'unreadable'} and no operationName was sent`
}

/**
 * The closing lines for an unmatched GraphQL request: the operations the method answers, closest
 * to the request's first (at most 5), and the entry to add.
 */
function operationLines(graphql: GraphqlRequest, compiled: CompiledMethod, key: string, method: string): string[] {
  const names = [...new Set(compiled.conditionals.flatMap((candidate) => (candidate.operation === undefined ? [] : [candidate.operation])))]
  const wanted = graphql.operation
  let closest = names
  if (wanted !== undefined) {
    // As for paths: the cost does not grow with the name sent, only with the names configured.
    const longest = names.reduce((most, name) => Math.max(most, name.length), 0) + 8
    const rows: [Uint32Array, Uint32Array] = [new Uint32Array(longest + 1), new Uint32Array(longest + 1)]
    const compared = wanted.slice(0, longest).toLowerCase()
    closest = names
      .map((name) => ({ name, d: distance(compared, name.toLowerCase(), rows) }))
      .sort((a, b) => a.d - b.d)
      .map(({ name }) => name)
  }
  const shown = closest.slice(0, 5).join(', ') + (closest.length > 5 ? `, and ${closest.length - 5} more` : '')
  // The operation is answered: what is out is its entries' params (the variables), named above.
  if (wanted !== undefined && names.includes(wanted)) {
    return [
      `Operation ${preview(wanted)} has entries under "${method.toLowerCase()}" of "${key}", and the request fits none of them (see each entry's reason above).`,
      `Send what one of them asks for, or add an entry { "operation": ${preview(wanted)}, "file": "..." } without params as the default for that operation.`,
    ]
  }
  return [
    `Closest operations ${key} (${method}) answers: ${shown}.`,
    wanted !== undefined
      ? `Add an entry { "operation": ${preview(wanted)}, "file": "..." } under "${method.toLowerCase()}" of "${key}" in your routes file, or send one of the operations above.`
      : `Send an operationName (or a document with one named operation), or add an entry without "operation" under "${method.toLowerCase()}" of "${key}" as the default.`,
  ]
}
