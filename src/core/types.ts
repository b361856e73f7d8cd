/**
 * The shapes of a `routes.json` file, as written by users (and by users of the old Express
 * mock server). See docs/behaviour.md, "Keys allowed in a routes file".
 */

/** A regular-expression match condition: `{ "pattern": "^20[0-9]{2}$", "flags": "i" }`. */
export interface PatternCondition {
  pattern: string
  flags?: string
}

export type ScalarCondition = string | number | boolean | null
export type ParamCondition =
  | ScalarCondition
  | PatternCondition
  | Array<ScalarCondition>
  | { [key: string]: unknown }

/**
 * A string-literal field's type: the names listed, for completion, or any other string, which is
 * what TypeScript infers for the field in a routes file imported as JSON (`"fault": "reset"` reads
 * as `string`). A name that is none of those listed is refused when the routes load, with the list.
 */
export type OneOf<Name extends string> = Name | (string & {})

/**
 * The maps of a routes file (params, headers, `on`) and the routes file itself. `undefined` is
 * allowed beside each value because TypeScript types an array of unlike objects read from JSON
 * with the keys each object lacks as `key?: undefined` (`[{ "status": "open" }, { "year": 2024 }]`
 * becomes `{ status: string; year?: undefined } | ...`), and those arrays must type-check.
 */
export type JsonMap<Value> = Record<string, Value | undefined>

export type HeaderMap = JsonMap<string>

/**
 * A network fault instead of an answer (docs/behaviour.md, "Faults"): `reset` (a TCP reset),
 * `close` (the connection ends without a byte), `hang` (no answer ever), `truncate` (the body cut
 * short of its `Content-Length`).
 */
export type FaultName = 'reset' | 'close' | 'hang' | 'truncate'
export const FAULT_NAMES: readonly FaultName[] = ['reset', 'close', 'hang', 'truncate']
/** How a file body is sent in timed pieces: by line (each with its newline) or N bytes at a time, `delay` ms apart. */
export interface StreamConfig {
  by: OneOf<'line'> | number
  delay?: number
}

/** One Server-Sent Event: `data` (a string, or JSON written on one line), and optionally its name, id, retry and the delay before it. */
export interface EventConfig {
  data: unknown
  event?: string
  id?: string
  retry?: number
  delay?: number
}

/** An item of `events` that ends the stream there; `"stop"` also answers a reconnect with `204`. */
export interface CloseEventConfig {
  /** `true` (TypeScript reads it from JSON as `boolean`) or `"stop"`. */
  close: boolean | OneOf<'stop'>
  delay?: number
}

/** `events`: an inline list, or the name of a JSON data file holding one. */
export type EventsConfig = Array<EventConfig | CloseEventConfig> | string

/** The keys that shape an answer at every level: a timed `stream` of the file, or `events`. */
export interface StreamingFields {
  stream?: StreamConfig
  events?: EventsConfig
}

/** One object of a `response` sequence. */
export interface SequenceItemConfig extends StreamingFields {
  file?: string
  fault?: OneOf<FaultName>
  url?: string
  status?: number
  latency?: number
  responseHeader?: HeaderMap
  responseHeaders?: HeaderMap
  /** How many requests in a row this item answers (0 or absent: once). */
  repeat?: number
}

/** An entry of a method key: the response and, optionally, the conditions that pick it. */
export interface RouteEntryConfig extends StreamingFields {
  file?: string
  fault?: OneOf<FaultName>
  url?: string
  status?: number
  latency?: number
  responseHeader?: HeaderMap
  responseHeaders?: HeaderMap
  params?: JsonMap<ParamCondition>
  headers?: JsonMap<string | PatternCondition>
  response?: SequenceItemConfig[]
  /** GraphQL: answers only GraphQL requests for this operation (docs/behaviour.md, "GraphQL"). */
  operation?: string
}

export type MethodConfig = string | RouteEntryConfig | RouteEntryConfig[]

/**
 * What a WebSocket step sends: a string as is, `{ "file": name }`, `{ "data": value }` (one
 * message), any other JSON value as its JSON text; an array is several messages.
 */
export type WebSocketData = unknown

/** One step of a route's `websocket` array (docs/behaviour.md, "WebSocket"). */
export interface WebSocketStepConfig {
  /** Reply to client messages that match: a text exactly, `{ pattern }`, or JSON paths -> values. Absent: sent on open. */
  on?: string | PatternCondition | JsonMap<ParamCondition>
  send?: WebSocketData
  /** Milliseconds before sending, counted from the previous send (or the client's message). */
  delay?: number
  /** Close from the server side with this code after sending. */
  close?: number
  /** End the connection without a close frame. */
  drop?: boolean
}

export interface RouteConfig extends StreamingFields {
  file?: string
  fault?: OneOf<FaultName>
  url?: string
  status?: number
  latency?: number
  responseHeader?: HeaderMap
  responseHeaders?: HeaderMap
  get?: MethodConfig
  put?: MethodConfig
  post?: MethodConfig
  delete?: MethodConfig
  patch?: MethodConfig
  head?: MethodConfig
  /** Steps served to a WebSocket opened on the route's path. */
  websocket?: WebSocketStepConfig[]
}

/**
 * A whole routes file: route key (`v1/users`) -> route, as written inline, held in a variable or
 * imported as JSON. It takes what TypeScript infers for a JSON file: the `"$schema"` key editors
 * complete the file from (a string: an index signature cannot leave one key out, so a string
 * passes for any key; the loader ignores `"$schema"` and refuses a string anywhere else) and
 * `undefined` beside each route (see `JsonMap`). Code that builds routes can use
 * `Record<string, RouteConfig>`, which is assignable to it.
 */
export interface RoutesConfig {
  /** The JSON Schema of routes files, for editors (`./node_modules/mockyard/schema/routes.json`); ignored when loading. */
  $schema?: string
  [route: string]: RouteConfig | string | undefined
}

export const METHOD_KEYS = ['get', 'put', 'post', 'delete', 'patch', 'head'] as const
export type MethodKey = (typeof METHOD_KEYS)[number]

/** The logger mockyard writes to. `console` fits, and so do pino, winston and most others. */
export interface Logger {
  log(...args: unknown[]): void
  debug(...args: unknown[]): void
  info(...args: unknown[]): void
  warn(...args: unknown[]): void
  error(...args: unknown[]): void
}

/**
 * Where data files come from. The node adapter reads a folder (confined to it); the browser
 * adapter fetches them from the dev server. `read` resolves to `undefined` for a missing file.
 */
export interface FileSource {
  /** A name for messages: the data folder, or a URL. */
  readonly label: string
  read(name: string): Promise<Uint8Array | undefined>
  /** The contents when they can be had without a wait (in memory: the hot path); else `undefined`. */
  readCached?(name: string): Uint8Array | undefined
  /** Whether a name that reads as missing is a symlink leading out of the folder (never served). */
  leadsOutside?(name: string): boolean
  /** The existing file whose name is closest to a missing one (a likely typo: `userz.json` -> `users.json`), for messages. */
  closestName?(name: string): string | undefined
}

/**
 * Whether a value is a promise, of this realm or another: under Jest and Vitest's vm pools
 * mockyard runs in a vm context while Node's `fs` and fetch answer with promises of the outer
 * realm, which `instanceof Promise` misses (the answer would be taken for the promise itself).
 */
export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return value instanceof Promise || (typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function')
}
