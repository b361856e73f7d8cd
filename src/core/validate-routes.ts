import { toPointer, type ConfigProblem } from './errors.js'
import { closestKey } from './closest-key.js'
import { answersOf, ENTRY_KEYS, GRAPHQL_METHODS, HEADER_KEYS, isFaultName, isPlainObject, isRoutePath, ITEM_KEYS, laidOver, patternFlags, ROUTE_KEYS, SOCKET_STEP_KEYS, socketFilesOf, walkRoutes, type Path } from './routes-model.js'
import { FAULT_NAMES, METHOD_KEYS } from './types.js'
import { isSendableCloseCode } from './websocket.js'
import { normalizeKey, pathShape } from './compile-routes.js'

const STREAM_KEYS: ReadonlySet<string> = new Set(['by', 'delay'])
const EVENT_KEYS: ReadonlySet<string> = new Set(['data', 'event', 'id', 'retry', 'delay'])
const CLOSE_KEYS: ReadonlySet<string> = new Set(['close', 'delay'])

export { ROUTE_KEYS, SCHEMA_KEY } from './routes-model.js'

/** What validating a routes file found: errors stop the load, warnings are logged. */
export interface RoutesValidation {
  errors: ConfigProblem[]
  warnings: ConfigProblem[]
}

/**
 * Tells whether a data file name stays inside its data folder: relative, and never climbing
 * above the folder with `..`. Used for config `file` values and for request paths alike.
 */
export function isInsideFolder(name: string): boolean {
  if (name === '' || name.includes('\0')) return false
  if (/^([a-zA-Z]:)?[\\/]/.test(name)) return false
  let depth = 0
  for (const segment of name.split(/[\\/]/)) {
    if (segment === '..') depth--
    else if (segment !== '.' && segment !== '') depth++
    if (depth < 0) return false
  }
  return depth > 0
}

/**
 * Checks a parsed routes file against the keys and types docs/behaviour.md allows. Every problem is
 * collected (none stops the walk), each with the file, the JSON pointer and what to do.
 *
 * @example
 * const { errors, warnings } = validateRoutes(JSON.parse(text), 'mocks/routes.json')
 * // An override (`useRoutes`, `PUT /__mockyard/routes`): a route of only `stream` is laid over the loaded one.
 * validateRoutes({ 'v1/answer': { stream: { by: 'line', delay: 50 } } }, 'useRoutes()', { override: true })
 */
export function validateRoutes(routes: unknown, file: string, options: { override?: boolean } = {}): RoutesValidation {
  const errors: ConfigProblem[] = []
  const warnings: ConfigProblem[] = []
  const error = (path: Path, message: string, fix: string) =>
    errors.push({ file, pointer: toPointer(path), message, fix })
  const warn = (path: Path, message: string, fix: string) =>
    warnings.push({ file, pointer: toPointer(path), message, fix })

  if (!isPlainObject(routes)) {
    error([], 'a routes file must hold a JSON object', 'Write the routes as { "v1/users": { "file": "users.json" } }.')
    return { errors, warnings }
  }

  const checkNumber = (path: Path, value: unknown, what: string, min = 0) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || !Number.isInteger(value) || value < min) {
      error(path, `${what} must be a whole number${min > 0 ? ` of at least ${min}` : ''}, got ${JSON.stringify(value)}`, `Write ${what} as a number, for example ${what === 'status' ? 200 : 100}.`)
    }
  }
  const checkString = (path: Path, value: unknown, what: string) => {
    if (typeof value !== 'string' || value === '') {
      error(path, `${what} must be a non-empty string, got ${JSON.stringify(value)}`, `Write ${what} as a string.`)
      return false
    }
    return true
  }
  const checkFile = (path: Path, value: unknown) => {
    if (!checkString(path, value, 'file')) return
    if (!isInsideFolder(value as string)) {
      error(path, `the file "${value}" is outside the data folder`, 'Name a file inside the data folder, relative to it, without "..".')
    }
  }
  const checkPattern = (path: Path, condition: Record<string, unknown>) => {
    const { pattern, flags } = condition
    if (typeof pattern !== 'string') {
      error([...path, 'pattern'], 'pattern must be a string', 'Write the regular expression as a string.')
      return
    }
    if (flags !== undefined && (typeof flags !== 'string' || /[^dgimsuvy]/.test(flags))) {
      error([...path, 'flags'], `invalid regular-expression flags ${JSON.stringify(flags)}`, 'Use a string of the flags d, i, m, s, u or v.')
      return
    }
    try {
      new RegExp(pattern, patternFlags(flags))
    } catch (cause) {
      error([...path, 'pattern'], `invalid regular expression ${JSON.stringify(pattern)} (${(cause as Error).message.replace(/^Invalid regular expression: /, '')})`, 'Fix the regular expression, or escape its special characters to match them literally.')
    }
    for (const key of Object.keys(condition)) {
      if (key !== 'pattern' && key !== 'flags') {
        const close = closestKey(key, ['pattern', 'flags'])
        warn([...path, key], `unknown key "${key}" in a pattern condition`, `${close ? `Did you mean "${close}"? ` : ''}A pattern condition takes only "pattern" and "flags".`)
      }
    }
  }
  const checkHeaders = (path: Path, value: unknown, what: string) => {
    if (!isPlainObject(value)) {
      error(path, `${what} must be an object of header names to values`, `Write ${what} as { "X-Name": "value" }.`)
      return
    }
    for (const [name, headerValue] of Object.entries(value)) {
      if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
        error([...path, name], `"${name}" is not a valid header name`, 'Use letters, digits and dashes in header names.')
      } else if (typeof headerValue !== 'string' && typeof headerValue !== 'number' && typeof headerValue !== 'boolean') {
        error([...path, name], `the header value must be a string`, `Write the value of ${name} as a string.`)
      }
    }
  }
  /** docs/behaviour.md, "Faults": one of the fault names, with the closest one for a typo. */
  const checkFault = (path: Path, value: unknown) => {
    if (isFaultName(value)) return
    const allowed = FAULT_NAMES.map((name) => `"${name}"`).join(', ')
    const close = typeof value === 'string' ? closestKey(value, FAULT_NAMES) : undefined
    error(path, `unknown fault ${JSON.stringify(value)}`, `${close ? `Did you mean "${close}"? ` : ''}Write fault as one of ${allowed}.`)
  }
  const checkResponseFields = (path: Path, object: Record<string, unknown>) => {
    if ('file' in object) checkFile([...path, 'file'], object.file)
    if ('url' in object) checkString([...path, 'url'], object.url, 'url')
    if ('status' in object) {
      checkNumber([...path, 'status'], object.status, 'status')
      const status = object.status
      if (typeof status === 'number' && (status < 200 || status > 599)) {
        error([...path, 'status'], `status ${status} is not a response status`, 'Use a status from 200 to 599.')
      }
    }
    if ('latency' in object) checkNumber([...path, 'latency'], object.latency, 'latency')
    if ('fault' in object) checkFault([...path, 'fault'], object.fault)
    for (const key of HEADER_KEYS) if (key in object) checkHeaders([...path, key], object[key], key)
    if ('stream' in object) checkStream([...path, 'stream'], object.stream)
    if ('events' in object) checkEvents([...path, 'events'], object.events)
  }
  /** Where each `stream` is written, for the check that some answer gives it a file to send. */
  const streams: Path[] = []
  const checkStream = (path: Path, stream: unknown) => {
    streams.push(path)
    if (!isPlainObject(stream)) {
      error(path, 'stream must be an object { "by": "line" or a number of bytes, "delay": ms }', 'Write stream as { "by": "line", "delay": 50 }.')
      return
    }
    const by = stream.by
    if (by !== 'line' && !(typeof by === 'number' && Number.isInteger(by) && by >= 1)) {
      error([...path, 'by'], `stream.by must be "line" or a whole number of bytes of at least 1, got ${JSON.stringify(by)}`, 'Write "by": "line" to send a line at a time, or "by": 16 for 16 bytes at a time.')
    }
    if ('delay' in stream) checkNumber([...path, 'delay'], stream.delay, 'delay')
    checkUnknown(path, stream, STREAM_KEYS, 'stream')
  }
  const checkEvents = (path: Path, events: unknown) => {
    if (typeof events === 'string') {
      if (!isInsideFolder(events)) error(path, `the events file "${events}" is outside the data folder`, 'Name a JSON file inside the data folder, relative to it, without "..".')
      return
    }
    if (!Array.isArray(events)) {
      error(path, `events must be an array of events or the name of a JSON data file holding one, got ${JSON.stringify(events)}`, 'Write events as [ { "data": "hello" }, { "data": { "n": 2 }, "delay": 100 } ] or as "events.json".')
      return
    }
    events.forEach((event, index) => checkEvent([...path, index], event))
  }
  const checkEvent = (path: Path, event: unknown) => {
    if (!isPlainObject(event)) {
      error(path, 'an event must be an object', 'Write the event as { "data": "hello", "event": "note", "id": "1" }, or { "close": true } to end the stream.')
      return
    }
    if ('delay' in event) checkNumber([...path, 'delay'], event.delay, 'delay')
    if ('close' in event) {
      if (event.close !== true && event.close !== 'stop') {
        error([...path, 'close'], `close must be true or "stop", got ${JSON.stringify(event.close)}`, 'Write { "close": true } to end the stream there, or { "close": "stop" } to also answer the reconnect with 204.')
      }
      checkUnknown(path, event, CLOSE_KEYS, 'a close item')
      return
    }
    if (!('data' in event)) error(path, 'an event needs data', 'Add "data": a string, or any JSON value (sent on one data: line).')
    for (const key of ['event', 'id'] as const) {
      if (!(key in event)) continue
      const value = event[key]
      if ((typeof value !== 'string' && typeof value !== 'number') || /[\r\n]/.test(String(value))) {
        error([...path, key], `${key} must be a string on one line, got ${JSON.stringify(value)}`, `Write ${key} as a string without line breaks.`)
      }
    }
    if ('retry' in event) checkNumber([...path, 'retry'], event.retry, 'retry')
    checkUnknown(path, event, EVENT_KEYS, 'an event')
  }
  const checkUnknown = (path: Path, object: Record<string, unknown>, allowed: ReadonlySet<string>, where: string) => {
    for (const key of Object.keys(object)) {
      if (!allowed.has(key)) {
        const closest = closestKey(key, allowed)
        warn([...path, key], `unknown key "${key}" in ${where}; it is ignored`, closest ? `Did you mean "${closest}"? Rename it, or remove it.` : `Remove it, or use one of ${[...allowed].join(', ')}.`)
      }
    }
  }
  const checkOperation = (path: Path, operation: unknown, method: string) => {
    if (typeof operation !== 'string' || operation === '') {
      error(path, `operation must be a non-empty string (a GraphQL operation name), got ${JSON.stringify(operation)}`, 'Write the operation name as a string, for example "operation": "GetUser".')
    } else if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(operation)) {
      error(path, `"${operation}" is not a GraphQL operation name`, 'Write the name as the document has it after query, mutation or subscription: letters, digits and _, for example "GetUser".')
    } else if (!GRAPHQL_METHODS.has(method)) {
      error(path, `an "operation" entry under ${method} never answers: GraphQL requests are GET or POST`, 'Move the entry under "post" (or "get").')
    }
  }
  const checkEntry = (path: Path, entry: unknown, method: string) => {
    if (!isPlainObject(entry)) {
      error(path, 'an entry must be an object', 'Write the entry as { "file": "x.json", "params": { ... } }.')
      return
    }
    checkUnknown(path, entry, ENTRY_KEYS, 'an entry')
    checkResponseFields(path, entry)
    if ('operation' in entry) checkOperation([...path, 'operation'], entry.operation, method)
    if ('params' in entry) {
      if (!isPlainObject(entry.params)) {
        error([...path, 'params'], 'params must be an object of names to values', 'Write params as { "name": "value" }.')
      } else {
        for (const [key, condition] of Object.entries(entry.params)) {
          if (isPlainObject(condition) && 'pattern' in condition) checkPattern([...path, 'params', key], condition)
          else if (Array.isArray(condition) && condition.some((v) => typeof v === 'object' && v !== null)) {
            error([...path, 'params', key], 'an array condition must hold plain values', 'List the accepted values as strings or numbers.')
          } else if (condition === undefined) {
            error([...path, 'params', key], 'a condition must have a value', 'Give the value to match.')
          }
        }
      }
    }
    if ('headers' in entry) {
      if (!isPlainObject(entry.headers)) {
        error([...path, 'headers'], 'headers must be an object of header names to values', 'Write headers as { "X-Name": "value" }.')
      } else {
        for (const [name, condition] of Object.entries(entry.headers)) {
          if (isPlainObject(condition) && 'pattern' in condition) checkPattern([...path, 'headers', name], condition)
          else if (typeof condition !== 'string' && typeof condition !== 'number' && typeof condition !== 'boolean') {
            error([...path, 'headers', name], 'a header condition must be a string or a pattern object', `Write the expected value of ${name} as a string.`)
          }
        }
      }
    }
    if ('response' in entry) {
      const sequence = entry.response
      if (!Array.isArray(sequence) || sequence.length === 0) {
        error([...path, 'response'], 'response must be a non-empty array of response objects', 'Write response as [ { "status": 202 }, { "status": 200, "file": "done.json" } ].')
      }
    }
  }
  const checkParamConditions = (path: Path, conditions: Record<string, unknown>) => {
    for (const [key, condition] of Object.entries(conditions)) {
      if (isPlainObject(condition) && 'pattern' in condition) checkPattern([...path, key], condition)
      else if (Array.isArray(condition) && condition.some((v) => typeof v === 'object' && v !== null)) {
        error([...path, key], 'an array condition must hold plain values', 'List the accepted values as strings or numbers.')
      } else if (condition === undefined) {
        error([...path, key], 'a condition must have a value', 'Give the value to match.')
      }
    }
  }
  /** A route's `websocket` steps (docs/behaviour.md, "WebSocket"). */
  const checkSocket = (path: Path, steps: unknown) => {
    if (!Array.isArray(steps)) {
      error(path, 'websocket must be an array of steps', 'Write websocket as [ { "send": { "type": "welcome" } }, { "on": "ping", "send": "pong" } ].')
      return
    }
    steps.forEach((step, index) => {
      const at = [...path, index]
      if (!isPlainObject(step)) {
        error(at, 'a websocket step must be an object', 'Write it as { "send": ... } (sent on open) or { "on": ..., "send": ... } (a reply).')
        return
      }
      checkUnknown(at, step, SOCKET_STEP_KEYS, 'a websocket step')
      const on = step.on
      if ('on' in step) {
        if (isPlainObject(on) && 'pattern' in on) checkPattern([...at, 'on'], on)
        else if (isPlainObject(on)) checkParamConditions([...at, 'on'], on)
        else if (typeof on !== 'string') error([...at, 'on'], `on must be a text, a { "pattern" } object or an object of JSON paths to values, got ${JSON.stringify(on)}`, 'Write on as "bye", { "pattern": "^hi" } or { "type": "ping" }.')
      } else if (!('send' in step) && !('close' in step) && step.drop !== true) {
        error(at, 'a websocket step without "on" must send, close or drop', 'Add "send" (a message sent on open), "close" (a close code) or "drop": true; or "on" to reply to client messages.')
      }
      if ('delay' in step) checkNumber([...at, 'delay'], step.delay, 'delay')
      if ('close' in step && !isSendableCloseCode(step.close)) {
        error([...at, 'close'], `close must be a close code a server may send, got ${JSON.stringify(step.close)}`, 'Use 1000 (normal), 1001-1003, 1007-1014, or an application code from 3000 to 4999.')
      }
      if ('drop' in step && step.drop !== true) error([...at, 'drop'], `drop must be true, got ${JSON.stringify(step.drop)}`, 'Write "drop": true to end the connection without a close frame, or remove it.')
    })
    for (const file of socketFilesOf(steps, path)) checkFile(file.path, file.name)
  }
  const checkItem = (path: Path, item: unknown) => {
    if (!isPlainObject(item)) {
      error(path, 'a response item must be an object', 'Write it as { "status": 200, "file": "x.json" }.')
      return
    }
    checkUnknown(path, item, ITEM_KEYS, 'a response item')
    checkResponseFields(path, item)
    if ('repeat' in item) checkNumber([...path, 'repeat'], item.repeat, 'repeat')
  }

  /** The first key of each path (`pathShape`), with its normalised form: keys that differ only by a parameter's name. */
  const firstOfPath = new Map<string, { key: string; normal: string }>()
  const checkKey = (key: string, path: Path) => {
    const syntax = expressSyntax(key)
    for (const problem of syntax.errors) error(path, problem.message, problem.fix)
    for (const problem of syntax.warnings) warn(path, problem.message, problem.fix)
    if (syntax.errors.length > 0) return
    // Keys that differ only by case or slashes are one route, merged: only other spellings of the path are warned about.
    const shape = pathShape(key)
    const normal = normalizeKey(key)
    const first = firstOfPath.get(shape)
    if (first === undefined) firstOfPath.set(shape, { key, normal })
    else if (first.normal !== normal) {
      warn(
        path,
        `"${key}" is the same path as "${first.key}" (only the parameters' names differ): "${first.key}", written first, answers it, and this route is never used`,
        `Move what this route answers into "${first.key}" (one key per path), or remove it.`,
      )
    }
  }
  walkRoutes(routes, {
    route(key, route, path) {
      if (!isPlainObject(route)) {
        error(path, 'a route must be an object', 'Write the route as { "file": "x.json" } or with method keys.')
        return
      }
      // An optional parameter's `?` is said as such (`expressSyntax`); any other `?` (a query), `#` or space is no path at all.
      if (isRoutePath(key.replace(OPTIONAL_MARK, '$1'))) checkKey(key, path)
      else error(path, `"${key}" is not a route path`, 'Write the key as a path without query or spaces, like "v1/users/:id".')
      checkUnknown(path, route, ROUTE_KEYS, 'a route')
      checkResponseFields(path, route)
      if ('websocket' in route) checkSocket([...path, 'websocket'], route.websocket)
    },
    method(method, value, path) {
      if (typeof value === 'string') checkFile(path, value)
      else if (!Array.isArray(value) && !isPlainObject(value)) {
        error(path, `${method} must be a file name, an entry object or an array of entries`, `Write ${method} as "x.json", { "file": "x.json" } or [ { ... } ].`)
      }
    },
    entry: (entry, path, method) => checkEntry(path, entry, method),
    item: (item, path) => checkItem(path, item),
  })
  if (streams.length > 0) checkStreamBodies(routes, options.override ? streams.filter((path) => !isLaidOverStream(routes, path)) : streams, error)
  return { errors, warnings }
}

/** The `?` of an optional parameter (`v1/items/:id?`), an Express form mockyard does not read. */
const OPTIONAL_MARK = /((?:^|\/):[\w$-]+)\?(?=\/|$)/g
/** A parameter as mockyard (and `init`) writes one: `:` and a name of letters, digits, `_`, `$` and `-`. */
const PARAM = /^:[\w$-]+$/
const PARAM_NAME = /^:[\w$-]*/
/** One group of alternatives in a segment: `(foo|bar)`, `v(1|2)`. */
const ALTERNATIVES = /^([^()|]*)\(([^()]*)\)([^()|]*)$/

interface KeyProblem {
  message: string
  fix: string
}

/**
 * Express path syntax that mockyard does not read (docs/behaviour.md, "Route table"): the old
 * server's Express took a `*` before the last segment or inside one (`v1/file*`), groups
 * (`v1/(foo|bar)`), constraints (`:id(\\d+)`), text after a parameter (`:id.pdf`) and optional
 * parameters (`:id?`) as patterns; mockyard reads them as literal text or as a parameter of a whole segment.
 * A warning for each says what the key answers here and how to write it; an optional parameter
 * (a `?`, which no route path holds) is an error.
 */
function expressSyntax(key: string): { errors: KeyProblem[]; warnings: KeyProblem[] } {
  const errors: KeyProblem[] = []
  const warnings: KeyProblem[] = []
  const segments = key.split('/').filter(Boolean)
  const keyWith = (index: number, replacement: string) => segments.map((segment, i) => (i === index ? replacement : segment)).join('/')
  const literalPath = `/${segments.join('/')}`
  /** The key cut at a segment and ended with `*` there: what matches everything below. */
  const starAt = (index: number) => [...segments.slice(0, index), '*'].join('/')
  const optional = segments.filter((segment) => /^:[\w$-]+\?$/.test(segment))
  if (optional.length > 0) {
    const without = segments.filter((segment) => !optional.includes(segment)).join('/') || '/'
    const all = segments.map((segment) => (optional.includes(segment) ? segment.slice(0, -1) : segment)).join('/')
    errors.push({
      message: `"${key}" has an optional parameter (${optional.map((segment) => `"${segment}"`).join(', ')}), which mockyard does not support`,
      fix: optional.length === 1 ? `Write two keys with the same answers: "${without}" and "${all}".` : `Write one key for each combination of the parameters, with the same answers, from "${without}" to "${all}".`,
    })
  }
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1
    if (segment.startsWith('\\') || PARAM.test(segment) || optional.includes(segment) || (segment === '*' && last)) return
    if (segment.startsWith(':')) {
      const name = PARAM_NAME.exec(segment)![0]
      const rest = segment.slice(name.length)
      if (name === ':') {
        warnings.push({ message: `"${key}": "${segment}" is a parameter without a name, and matches any one segment`, fix: `Name it: "${keyWith(index, ':name')}".` })
      } else if (rest.startsWith('(') && rest.endsWith(')')) {
        warnings.push({
          message: `"${key}": a route key cannot constrain a parameter; "${rest}" is ignored, and "${segment}" matches any one segment`,
          fix: `Write "${keyWith(index, name)}". To answer some values differently, add keys with the value in place of "${name}" (such as "${keyWith(index, '42')}"): a literal segment wins over a parameter.`,
        })
      } else {
        warnings.push({
          message: `"${key}": a parameter takes a whole segment, so "${segment}" matches any one segment, not only "${name}" followed by "${rest}"`,
          fix: /^\.\w+$/.test(rest)
            ? `Write "${keyWith(index, name)}": a request whose path ends in "${rest}" reaches it too.`
            : `Write the parameter alone in its segment ("${keyWith(index, name)}").`,
        })
      }
    } else if (segment === '*') {
      warnings.push({
        message: `"${key}": a "*" matches the rest of the path only as the last segment of a key; here it is the literal segment "*", so this route answers only the path ${literalPath}`,
        fix: `Write ":any" for any one segment ("${keyWith(index, ':any')}"), or end the key with the "*" to match everything below ("${starAt(index)}").`,
      })
    } else if (segment.includes('*')) {
      warnings.push({
        message: `"${key}": a "*" inside a segment ("${segment}") is literal, so this route answers only the path ${literalPath}`,
        fix: `A "*" matches the rest of the path only as a whole last segment ("${starAt(index)}"); write one key per path instead (such as "${keyWith(index, segment.replaceAll('*', ''))}"), or ":any" for any one segment ("${keyWith(index, ':any')}").`,
      })
    } else if (/[()]/.test(segment)) {
      const group = ALTERNATIVES.exec(segment)
      const paths = group ? group[2]!.split('|').map((alternative) => `"${keyWith(index, group[1]! + alternative + group[3]!)}"`) : []
      warnings.push({
        message: `"${key}": parentheses and "|" are not patterns in a route key; the segment "${segment}" is literal, so this route answers only the path ${literalPath}`,
        fix: paths.length > 1 ? `Write one key per path, with the same answers: ${paths.join(', ')}.` : `Write one key per path, with the same answers, or ":any" for any one segment ("${keyWith(index, ':any')}").`,
      })
    }
  })
  return { errors, warnings }
}

/** The route-level `stream` of an override laid over the loaded route (`laidOver`): it streams that route's files. */
function isLaidOverStream(routes: Record<string, unknown>, path: Path): boolean {
  const route = routes[path[0] as string]
  return path.length === 2 && isPlainObject(route) && laidOver(route)
}

/**
 * `stream` changes how a file body is sent, so it needs one: an error for each `stream` that no
 * answer of its route sends with a `file` (written beside it or inherited).
 */
function checkStreamBodies(routes: Record<string, unknown>, streams: Path[], error: (path: Path, message: string, fix: string) => void): void {
  const withFile = new Set<string>()
  for (const key of new Set(streams.map((path) => path[0] as string))) {
    const route = routes[key]
    if (!isPlainObject(route)) continue
    for (const method of METHOD_KEYS) {
      for (const answer of answersOf(route, key, method)) {
        // Beside events (or a redirect) the stream is only unused: `check` reports it as such.
        const { stream, file, events, url } = answer.fields
        if (stream && (file || events || url)) withFile.add(toPointer(stream.path))
      }
    }
  }
  for (const path of streams) {
    if (!withFile.has(toPointer(path))) {
      error(path, 'stream sends a file body in timed pieces, and no answer here has a file', 'Add "file" beside the stream (an .ndjson or text file, for instance), or use "events" for Server-Sent Events.')
    }
  }
}

/** Every data file a routes file names, with the tokens of its JSON pointer (`toPointer(path)`). */
export function listFiles(routes: unknown): Array<{ name: string; path: Path }> {
  const found: Array<{ name: string; path: Path }> = []
  const fileOf = (object: unknown, path: Path) => {
    if (isPlainObject(object) && typeof object.file === 'string') found.push({ name: object.file, path: [...path, 'file'] })
    if (isPlainObject(object) && typeof object.events === 'string') found.push({ name: object.events, path: [...path, 'events'] })
  }
  walkRoutes(routes, {
    route(_key, route, path) {
      fileOf(route, path)
      if (!isPlainObject(route)) return
      for (const file of socketFilesOf(route.websocket, [...path, 'websocket'])) if (typeof file.name === 'string') found.push({ name: file.name, path: file.path })
    },
    method(_method, value, path) {
      if (typeof value === 'string') found.push({ name: value, path })
    },
    entry: fileOf,
    item: fileOf,
  })
  return found
}
