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

export type HeaderMap = Record<string, string>

/** One object of a `response` sequence. */
export interface SequenceItemConfig {
  file?: string
  url?: string
  status?: number
  latency?: number
  responseHeader?: HeaderMap
  responseHeaders?: HeaderMap
  /** How many requests in a row this item answers (0 or absent: once). */
  repeat?: number
}

/** An entry of a method key: the response and, optionally, the conditions that pick it. */
export interface RouteEntryConfig {
  file?: string
  url?: string
  status?: number
  latency?: number
  responseHeader?: HeaderMap
  responseHeaders?: HeaderMap
  params?: Record<string, ParamCondition>
  headers?: Record<string, string | PatternCondition>
  response?: SequenceItemConfig[]
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
  on?: string | PatternCondition | Record<string, ParamCondition>
  send?: WebSocketData
  /** Milliseconds before sending, counted from the previous send (or the client's message). */
  delay?: number
  /** Close from the server side with this code after sending. */
  close?: number
  /** End the connection without a close frame. */
  drop?: boolean
}

export interface RouteConfig {
  file?: string
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

/** A whole routes file: route key (`v1/users`) -> route. */
export type RoutesConfig = Record<string, RouteConfig>

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
