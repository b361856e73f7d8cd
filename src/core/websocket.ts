/**
 * A route's `websocket` steps (docs/behaviour.md, "WebSocket"): compiled once, then asked per
 * connection (the steps sent on open) and per client message (the reply that matches, or why
 * none does). Isomorphic: the listener, the in-process interception and the browser worker all
 * drive their sockets with it. Message conditions are the `params` conditions
 * (`compileCondition`), looked up in the message's JSON by the same paths (`lookupPath`).
 */
import { compileCondition, compilePattern, type Condition } from './compile-condition.js'
import { toPointer } from './errors.js'
import { lookupPath, parsePath } from './parse-request.js'
import { preview } from './redact.js'
import { isPlainObject, type Path } from './routes-model.js'
import type { FileSource, ParamCondition, PatternCondition } from './types.js'

/** One message a step sends, as written: a text sent as is, a JSON value sent as its text, or a data file. */
export type OutMessage = { readonly text: string } | { readonly json: unknown } | { readonly file: string }

/** What a reply's `on` compares a client message with. */
export type MessageMatch =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'pattern'; readonly regex: RegExp }
  | { readonly kind: 'json'; readonly paths: ReadonlyArray<Condition & { readonly tokens: readonly string[] }> }

/** One compiled step: sent on open (no `on`), or a reply to the client messages it matches. */
export interface SocketStep {
  /** `websocket[2]`: the step's place in the route, for the request log and explanations. */
  readonly label: string
  /** JSON pointer of the step in its routes file. */
  readonly pointer: string
  readonly send: readonly OutMessage[]
  /** Whether every message is written in the step (no data file to read): sent without a wait. */
  readonly inline: boolean
  /** Milliseconds before the step's messages, counted from the previous send (or the client's message). */
  readonly delay: number
  /** Close from the server side with this code after sending. */
  readonly close?: number
  /** End the connection without a close frame. */
  readonly drop: boolean
  readonly on?: MessageMatch
  /** The `on` as written, for explanations. */
  readonly onText?: string
}

/** A route's steps, bound to the data folder of the routes file that wrote them. */
export interface CompiledSocket {
  readonly open: readonly SocketStep[]
  readonly replies: readonly SocketStep[]
  readonly files: FileSource
}

/** The reply chosen for a client message, and the message as the reply's `${message.<path>}` reads it. */
export interface SocketReply {
  readonly step: SocketStep
  /** The message's JSON value, when it is JSON; else its text. */
  readonly message: unknown
}

/** The close codes a server may send: 1000-1003, 1007-1014 and 3000-4999 (RFC 6455, section 7.4). */
export function isSendableCloseCode(code: unknown): code is number {
  if (typeof code !== 'number' || !Number.isInteger(code)) return false
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999)
}

/**
 * The messages a step's `send` stands for (docs/behaviour.md, "WebSocket"): an array is several
 * messages; a string is sent as is; `{ "file": name }` sends the file; `{ "data": value }` sends
 * `value` as one message; any other JSON value is sent as its JSON text.
 */
export function messagesOf(data: unknown): OutMessage[] {
  if (data === undefined) return []
  return Array.isArray(data) ? data.map(messageOf) : [messageOf(data)]
}

function messageOf(data: unknown): OutMessage {
  if (typeof data === 'string') return { text: data }
  if (isPlainObject(data)) {
    const keys = Object.keys(data)
    if (keys.length === 1 && keys[0] === 'file' && typeof data.file === 'string') return { file: data.file }
    if (keys.length === 1 && keys[0] === 'data') return typeof data.data === 'string' ? { text: data.data } : { json: data.data }
  }
  return { json: data }
}

function isPattern(value: unknown): value is PatternCondition {
  return isPlainObject(value) && typeof value.pattern === 'string'
}

function compileMatch(on: unknown): MessageMatch {
  if (typeof on === 'string') return { kind: 'text', text: on }
  if (isPattern(on)) return { kind: 'pattern', regex: compilePattern(on) }
  const paths = Object.entries(isPlainObject(on) ? on : {}).map(([key, condition]) => ({ ...compileCondition(key, condition as ParamCondition), tokens: parsePath(key) }))
  return { kind: 'json', paths }
}

/**
 * Compiles a route's `websocket` array (validated at load: what is not an object is skipped).
 * `path` is the array's JSON pointer tokens (`['v1/chat', 'websocket']`).
 */
export function compileSocket(steps: unknown, files: FileSource, path: Path): CompiledSocket {
  const open: SocketStep[] = []
  const replies: SocketStep[] = []
  if (Array.isArray(steps)) {
    steps.forEach((step, index) => {
      if (!isPlainObject(step)) return
      const send = messagesOf(step.send)
      const compiled: SocketStep = {
        label: `websocket[${index}]`,
        pointer: toPointer([...path, index]),
        send,
        inline: send.every((out) => !('file' in out)),
        delay: typeof step.delay === 'number' && step.delay > 0 ? step.delay : 0,
        close: isSendableCloseCode(step.close) ? step.close : undefined,
        drop: step.drop === true,
        ...(step.on !== undefined ? { on: compileMatch(step.on), onText: JSON.stringify(step.on) } : {}),
      }
      if (compiled.on) replies.push(compiled)
      else open.push(compiled)
    })
  }
  return { open, replies, files }
}

/** The text of a client message: binary messages are read as UTF-8. */
export function messageText(data: string | ArrayBuffer | ArrayBufferView | Blob): string | Promise<string> {
  if (typeof data === 'string') return data
  if (typeof Blob !== 'undefined' && data instanceof Blob) return data.text()
  const bytes = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data as ArrayBuffer)
  return new TextDecoder().decode(bytes)
}

const NOT_JSON = Symbol('not json')

/** The message's JSON value (parsed once per message, only when a step asks for JSON), or `NOT_JSON`. */
function jsonOf(text: string): unknown {
  const first = text.trimStart()[0]
  if (first !== '{' && first !== '[' && first !== '"') return NOT_JSON
  try {
    return JSON.parse(text)
  } catch {
    return NOT_JSON
  }
}

/** How many paths a JSON step names when it matches the message, else -1. */
function jsonScore(match: Extract<MessageMatch, { kind: 'json' }>, json: unknown): number {
  if (json === NOT_JSON) return -1
  for (const path of match.paths) {
    const value = lookupPath(json, path.tokens, path.key)
    // Every path named must hold its value: an absent one is no match (not a miss, as in params).
    if (value === undefined) return -1
    if (path.score(value) === null) return -1
  }
  return match.paths.length
}

/**
 * The reply to a client message: a text `on` matches the text exactly, a pattern by regex, an
 * object when every path it names holds its value; among the JSON steps that match, the one naming
 * most paths wins, then the first; a text or pattern step that matches counts as one path.
 */
export function matchMessage(socket: CompiledSocket, text: string): SocketReply | undefined {
  let json: unknown = undefined
  let parsed = false
  let best: SocketStep | undefined
  let bestScore = -1
  for (const step of socket.replies) {
    const on = step.on!
    let score: number
    if (on.kind === 'text') score = on.text === text ? 1 : -1
    else if (on.kind === 'pattern') score = on.regex.test(text) ? 1 : -1
    else {
      if (!parsed) {
        json = jsonOf(text)
        parsed = true
      }
      score = jsonScore(on, json)
    }
    if (score > bestScore) {
      best = step
      bestScore = score
    }
  }
  if (!best) return undefined
  if (!parsed) json = jsonOf(text)
  return { step: best, message: json === NOT_JSON ? text : json }
}

/**
 * Why a message is not JSON to the steps: not JSON at all, or a JSON value with no paths
 * (`null`, a number, `true`), which only a text or pattern step matches.
 */
function notJsonReason(text: string): string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return 'the message is not JSON'
  }
  return `the message is the JSON value ${preview(value)}, not an object or an array`
}

/** Why one reply step does not match a message, and how close it comes (paths that hold their value). */
function whyNot(step: SocketStep, text: string, json: unknown): { reason: string; hits: number } {
  const on = step.on!
  if (on.kind === 'text') return { reason: `expected the text ${preview(on.text)}`, hits: 0 }
  if (on.kind === 'pattern') return { reason: `expected a text matching ${on.regex}`, hits: 0 }
  if (json === NOT_JSON) return { reason: `expected JSON with ${on.paths.map((p) => `"${p.key}"`).join(', ') || 'any value'}, ${notJsonReason(text)}`, hits: 0 }
  let hits = 0
  let reason = ''
  for (const path of on.paths) {
    const value = lookupPath(json, path.tokens, path.key)
    if (value !== undefined && path.score(value) !== null) hits++
    else if (reason === '') reason = value === undefined ? `"${path.key}" is absent, expected ${path.expected}` : path.explain(value).replace(/^param /, '')
  }
  return { reason, hits }
}

/**
 * Why no step of a route replies to a client message, naming the closest step: the JSON step
 * with most paths holding their value, else the first step.
 */
export function explainMessage(socket: CompiledSocket, route: string, text: string): string {
  const head = `the WebSocket message ${preview(text)} on route ${route} matches no step, so it gets no reply.`
  if (socket.replies.length === 0) return `${head} The route has no step with "on": add { "on": ..., "send": ... } to reply to client messages.`
  const json = jsonOf(text)
  let closest: { step: SocketStep; reason: string; hits: number } | undefined
  for (const step of socket.replies) {
    const why = whyNot(step, text, json)
    if (!closest || why.hits > closest.hits) closest = { step, ...why }
  }
  const { step, reason } = closest!
  return `${head}\n  closest: ${step.label} (on ${step.onText}, ${step.pointer}): ${reason}.`
}

const MESSAGE_REF = /\$\{message(?:\.([^}]*))?\}/g
const WHOLE_REF = /^\$\{message(?:\.([^}]*))?\}$/

/** The value of `${message.<path>}` (or `${message}`, the whole message) in the matched message. */
function referenced(message: unknown, path: string | undefined): unknown {
  if (path === undefined || path === '') return message
  return lookupPath(message, parsePath(path), path)
}

function asText(value: unknown): string {
  if (value === undefined) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** Replaces `${message.<path>}` in a string: the whole string keeps the value's type, a part becomes its text. */
function fillString(text: string, message: unknown): unknown {
  const whole = WHOLE_REF.exec(text)
  if (whole) return referenced(message, whole[1])
  return text.includes('${message') ? text.replace(MESSAGE_REF, (_all, path: string | undefined) => asText(referenced(message, path))) : text
}

function fillValue(value: unknown, message: unknown, depth = 0): unknown {
  if (typeof value === 'string') return fillString(value, message)
  if (depth > 64 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => fillValue(item, message, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) out[key] = fillValue(item, message, depth + 1)
  return out
}

/**
 * The text of one message a step sends (a file is read by the caller), with `${message.<path>}`
 * replaced by the matched client message's values in a reply.
 */
export function outText(out: Exclude<OutMessage, { file: string }>, message?: unknown): string {
  if ('text' in out) return message === undefined ? out.text : asText(fillString(out.text, message))
  return JSON.stringify(message === undefined ? out.json : fillValue(out.json, message)) ?? 'null'
}
