/**
 * GraphQL requests (docs/behaviour.md, "GraphQL"): which requests are GraphQL, their operation,
 * and the values their `params` are looked up in. Only a method with an `operation` entry reads
 * requests this way, so a REST body with a `query` field is never taken for GraphQL.
 */
import type { ScannedDocument } from './graphql-operation.js'

/**
 * The key the `operation` of an entry is scored under, among its params: a NUL-prefixed name
 * no `params` key of a routes file collides with in practice, so that the scoring loop, the
 * literal index and the explanations treat the operation as one more condition.
 */
export const OPERATION_PARAM = '\u0000operation'

/** Finds the operation of a GraphQL document (graphql-operation.ts, loaded with the first GraphQL request). */
export type OperationScanner = (document: string) => ScannedDocument

/** The documents a scanner remembers, and the longest it remembers (in characters): at most 256 KB per engine. */
const REMEMBERED_DOCUMENTS = 32
const REMEMBERED_LENGTH = 4096

/**
 * Loads the document scanner: an engine awaits it with its first GraphQL request and keeps what
 * it resolves with (the module system loads the file once). Each scanner remembers what it found
 * in the last few short documents: a client sends the same few documents again and again, and
 * looking one up costs about a third of scanning it (bench/graphql.mjs).
 */
export function loadOperationScanner(): Promise<OperationScanner> {
  return import('./graphql-operation.js').then(({ scanOperation }) => {
    const remembered = new Map<string, ScannedDocument>()
    return (document: string) => {
      // A long document is scanned every time (and never hashed for the lookup).
      if (document.length > REMEMBERED_LENGTH) return scanOperation(document)
      let scanned = remembered.get(document)
      if (scanned === undefined) {
        scanned = scanOperation(document)
        if (remembered.size >= REMEMBERED_DOCUMENTS) remembered.clear()
        remembered.set(document, scanned)
      }
      return scanned
    }
  })
}

/** What a GraphQL request sent, before its document is read. */
export interface GraphqlParts {
  readonly document?: string
  readonly operationName?: string
  /** What `params` paths are looked up in: `{ operationName, variables, query }` (and `extensions`). */
  readonly view: Record<string, unknown>
}

/** A GraphQL request as matching sees it. */
export interface GraphqlRequest {
  /** `operationName` when sent, else the name of the document's one operation; `undefined`: none. */
  readonly operation: string | undefined
  /** Why there is no operation (`anonymous`, `2 operations`...), for explanations. */
  readonly why?: string
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/** A query-string value that holds JSON (`variables`, `extensions`): parsed, else kept as text. */
function jsonParameter(value: string | string[] | undefined): unknown {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

/**
 * Whether a parsed body came from JSON: `JSON.parse` makes ordinary objects, while a form body
 * (urlencoded or multipart) is parsed into a tree without a prototype (parse-request.ts parses
 * forms with `qs`'s `plainObjects`).
 */
const isJsonObject = (body: unknown): body is Record<string, unknown> => isObject(body) && Object.getPrototypeOf(body) !== null

/**
 * The GraphQL parts of a request, or `undefined` when it is not one: a POST whose JSON body is an
 * object with a string `query` or an `operationName` (a form with those fields is not GraphQL),
 * or a GET with `query` or `operationName` in its query string (`variables` and `extensions`
 * there are JSON text).
 */
export function graphqlPartsOf(method: string, query: ReadonlyMap<string, string | string[]>, body: unknown): GraphqlParts | undefined {
  if (method === 'POST') {
    if (!isJsonObject(body)) return undefined
    const document = typeof body.query === 'string' ? body.query : undefined
    const operationName = text(body.operationName)
    if (document === undefined && operationName === undefined) return undefined
    return { document, operationName, view: body }
  }
  if (method === 'GET') {
    const sent = query.get('query')
    const document = typeof sent === 'string' ? sent : undefined
    const operationName = text(query.get('operationName'))
    if (document === undefined && operationName === undefined) return undefined
    const view: Record<string, unknown> = {}
    if (document !== undefined) view.query = document
    if (operationName !== undefined) view.operationName = operationName
    if (query.has('variables')) view.variables = jsonParameter(query.get('variables'))
    if (query.has('extensions')) view.extensions = jsonParameter(query.get('extensions'))
    return { document, operationName, view }
  }
  return undefined
}

/** The operation of a GraphQL request: the `operationName` sent wins; the document is read only without one. */
export function graphqlRequestOf(parts: GraphqlParts, scan: OperationScanner): GraphqlRequest {
  if (parts.operationName !== undefined) return { operation: parts.operationName }
  const scanned = scan(parts.document ?? '')
  return { operation: scanned.name, why: scanned.why }
}
