/**
 * What the pipeline asks of the `validate` option's checker (docs/behaviour.md, "Traffic checked
 * against a contract"): the violations of each exchange a route answers, and which operations of
 * the document were answered. Only the shape lives here: the checker itself reads an OpenAPI
 * document with Node and ajv (src/check/traffic.ts), and is loaded only when `validate` is set.
 */
import type { MockResponse } from '../core/build-response.js'
import type { Violation } from './request-log.js'

export type { Violation }

/** One answered exchange, as the pipeline has it when it records the request. */
export interface Exchange {
  /** Upper-case. */
  method: string
  /** The absolute URL. */
  url: string
  headers: { get(name: string): string | null }
  /** The request body as read (`null`: none). */
  body: Uint8Array | null
  /**
   * The route's answer. Anything but a plain body (a stream, `events`, a fault) is checked for
   * its status and content type only.
   */
  response: MockResponse
}

/** One operation of the document and how many requests were answered for it. */
export interface OperationCoverage {
  /** Upper-case. */
  method: string
  /** The path as the document writes it (`/users/{id}`). */
  path: string
  operationId?: string
  answered: number
}

/** The document's operations answered and never answered since the start. */
export interface Coverage {
  /** The document, as the `validate` option names it. */
  document: string
  /** In the document's order. */
  operations: OperationCoverage[]
  /** How many operations were answered at least once. */
  answered: number
  total: number
  /** A short text form for a CI summary: one line of totals, then the operations never answered. */
  text: string
}

/** The checker of the `validate` option, as the pipeline uses it. */
export interface TrafficCheck {
  /** The document, as reports name it (`api/openapi.yaml`). */
  readonly document: string
  /** The violations of an exchange a route answered (empty when it agrees); counts its operation. */
  check(exchange: Exchange): Violation[]
  /** Counts an answer that is not checked (a handler's) for coverage. */
  count(method: string, url: string): void
  coverage(): Coverage
}

/** The exchange a violation belongs to, as a message names it. */
export interface ViolatedExchange {
  method: string
  url: string
  status: number
  /** The data file served, else the route key that answered. */
  file?: string
  route?: string
}

/**
 * One violation as a line of a log or of a test's failure: the request, where (the data file
 * and the JSON pointer in it, or the request's part), what, and the schema path.
 *
 * @example
 * formatViolation({ method: 'GET', url: 'http://api.test/v1/users', status: 200, file: 'users.json' }, violation)
 * // 'GET /v1/users 200: response users.json#/1/id: must be integer (response 200 of GET /users); schema openapi.yaml#/components/schemas/User/properties/id/type'
 */
export function formatViolation(exchange: ViolatedExchange, violation: Violation): string {
  let path = exchange.url
  try {
    const url = new URL(exchange.url)
    path = url.pathname + url.search
  } catch {
    // Not absolute: shown as given.
  }
  const source = exchange.file ?? (exchange.route !== undefined ? `route ${exchange.route}` : 'answer')
  const place = violation.where === 'response' ? `response ${source}#${violation.pointer}` : `request${violation.pointer === '' ? '' : `#${violation.pointer}`}`
  return `${exchange.method} ${path} ${exchange.status}: ${place}: ${violation.message}${violation.schema ? `; schema ${violation.schema}` : ''}`
}
