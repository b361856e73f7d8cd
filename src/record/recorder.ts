import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { formatMessage } from '../core/errors.js'
import { errorResponse } from '../core/build-response.js'
import { DEFAULT_BODY_LIMIT_BYTES } from '../core/defaults.js'
import { cameBack, ForwardError, forwardErrorTitle, forwarderName, forwardRequest, LOOP_HEADER, parseTarget, responseHeadersToSend, targetIsListener, UPSTREAM_TIMEOUT_MS } from '../forward/forward.js'
import { answerThenDrain, payloadTooLarge, readBody } from '../forward/body.js'
import { decodeStreaming, Spool, TIMING_LIMIT, TooLargeError } from './exchange.js'
import { pairsOf } from '../forward/headers.js'
import { localUrlOf } from '../listener/address.js'
import { createRecordWriter, type RecordResult, type RecordSummary } from './writer.js'

export interface RecorderOptions {
  /** The real back end: every request is forwarded to it (its base path is kept in front of the request's). */
  target: string
  /** Folder of routes.json and data/. Default `mocks`. */
  out?: string
  /** Default 9999; 0 picks a free one. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** Header, query and body field names whose values are never written. */
  redact?: string[]
  /** How long the target may stay silent before a request is given up with a 504; default 30,000 ms. */
  timeoutMs?: number
  /** Called once per request, after its answer was recorded (or not), with the log line. */
  onRecord?: (line: string, result: RecordResult | undefined) => void
}

export interface RunningRecorder {
  /** `http://HOST:PORT`, with a loopback host when bound to all interfaces. */
  readonly url: string
  readonly host: string
  readonly port: number
  readonly server: Server
  readonly routesFile: string
  /** What has been recorded so far. */
  summary(): RecordSummary
  /** Stops accepting connections, lets requests in flight finish and be written, then resolves with the summary. */
  stop(): Promise<RecordSummary>
}

/** The recorder keeps each body in memory to write it: the listener's default limit, fixed. */
const MAX_BODY = DEFAULT_BODY_LIMIT_BYTES

/**
 * Starts a recording listener: every request goes to `target`, the client gets the real answer
 * unchanged, and what was seen is written as routes.json and data files as it goes
 * (docs/behaviour.md, "Record, import and proxy").
 *
 * @example
 * const recorder = await startRecorder({ target: 'http://localhost:8080', out: 'mocks', port: 0 })
 * await fetch(`${recorder.url}/v1/users`) // the real answer, recorded in mocks/routes.json
 * console.log(await recorder.stop()) // { requests: 1, routes: 1, entries: 1, files: 1, clashes: [] }
 */
export async function startRecorder(options: RecorderOptions): Promise<RunningRecorder> {
  const target = parseTarget(options.target)
  if (typeof target === 'string') throw new Error(formatMessage(`cannot record: the target ${target}. Give the back end's base URL, such as --target http://localhost:8080.`))
  const writer = createRecordWriter({ out: options.out ?? 'mocks', redact: options.redact })
  const pending = new Set<Promise<unknown>>()
  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise)
    promise.finally(() => pending.delete(promise)).catch(() => undefined)
    return promise
  }
  const report = options.onRecord ?? (() => undefined)

  const name = forwarderName()
  const timeoutMs = options.timeoutMs ?? UPSTREAM_TIMEOUT_MS

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const method = (req.method ?? 'GET').toUpperCase()
    const path = req.url ?? '/'
    /** mockyard's own answer, not recorded: the target failed, the path or the body was refused, a loop. */
    const refuse = (error: Error) => {
      const status = error instanceof ForwardError ? error.status : 502
      const reason = (error as NodeJS.ErrnoException).code ?? error.message
      const message =
        status === 400 ? `${method} ${pathOnly(path)} was not forwarded: ${error.message}. Send a path without ".." segments`
        : status === 508 ? `${method} ${pathOnly(path)} came back to this recorder: the target ${options.target} leads back to it, so it was not forwarded again. Point --target at the real back end`
        : status === 504 ? `${method} ${pathOnly(path)} could not be recorded: the target ${options.target} did not answer in time (${error.message}). Check that the back end answers, or raise --timeout`
        : `${method} ${pathOnly(path)} could not be recorded: the target ${options.target} did not answer (${reason}). Start the back end, or fix --target`
      const answer = errorResponse(status, forwardErrorTitle(error), message, { target: options.target })
      if (status === 508) answer.headers[LOOP_HEADER] = name
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body as string) })
        res.end(answer.body)
      }
      report(`${method} ${pathOnly(path)} ${status} not recorded: ${status === 502 ? `the target did not answer (${reason})` : status === 504 ? 'the target did not answer in time' : status === 508 ? 'the request came back to this recorder (a loop)' : 'the path leaves the target\'s base path'}`, undefined)
    }
    if (cameBack(req.rawHeaders, name)) {
      req.resume()
      return refuse(new ForwardError(508, 'a loop'))
    }
    // The body is kept in memory to be written: one over MAX_BODY is refused whole (a 413
    // before anything is forwarded), never forwarded cut short.
    readBody(req, MAX_BODY, (bodyError, body) => {
      if (bodyError) {
        if (bodyError.name !== 'PayloadTooLargeError') return res.destroy()
        answerThenDrain(req, res, payloadTooLarge(method, pathOnly(path), new Error(`${bodyError.message} (mockyard record keeps each body in memory to write it)`), MAX_BODY))
        report(`${method} ${pathOnly(path)} 413 not recorded: the body is over ${MAX_BODY} bytes`, undefined)
        return
      }
      let answered: () => void = () => undefined
      track(new Promise<void>((resolve) => (answered = resolve)))
      let upstream: IncomingMessage | undefined
      // A client that goes before its answer is complete releases the connection to the target.
      res.on('close', () => {
        if (res.writableFinished) return
        giveUp()
        upstream?.destroy()
        answered()
      })
      const giveUp = forwardRequest(target, { method, url: path, rawHeaders: req.rawHeaders, body, via: name, timeoutMs }, (error, response) => {
        if (error || !response) {
          refuse(error ?? new Error('no response'))
          answered()
          return
        }
        upstream = response
        const status = response.statusCode ?? 502
        res.writeHead(status, response.statusMessage, responseHeadersToSend(response))
        if (response.headers[LOOP_HEADER] === name) {
          // This recorder's own 508, back through the loop: passed on, never recorded.
          response.pipe(res)
          response.on('end', answered)
          response.on('error', answered)
          report(`${method} ${pathOnly(path)} ${status} not recorded: the request came back to this recorder (a loop)`, undefined)
          return
        }
        // The body goes to the client and to a spool (memory, then a temporary file past 8 MB):
        // a large answer never sits in memory whole, and a slow client pauses the target.
        const received = new Spool(writer.dataFolder)
        // An answer cut short (the client went, the target failed) leaves no temporary file.
        response.on('close', () => {
          if (!response.complete) received.discard()
        })
        // When each piece came: an event stream's delays, a chunked answer's pace.
        const headersAt = performance.now()
        const timing: Array<{ at: number; end: number }> = []
        response.on('data', (chunk: Buffer) => {
          received.write(chunk)
          if (timing.length < TIMING_LIMIT) timing.push({ at: Math.round(performance.now() - headersAt), end: received.size })
          if (!res.write(chunk)) {
            response.pause()
            res.once('drain', () => response.resume())
          }
        })
        res.on('close', () => response.resume())
        response.on('error', () => {
          received.discard()
          res.destroy()
          answered()
        })
        response.on('end', () => {
          res.end()
          const raw = received.finish()
          const responseHeaders = pairsOf(response.rawHeaders)
          const encoding = response.headers['content-encoding']
          const recorded = (raw === null ? Promise.resolve(null) : decodeStreaming(raw, encoding, writer.dataFolder)).then((responseBody) =>
            writer.add({
              method,
              url: targetlessUrl(path),
              requestHeaders: pairsOf(req.rawHeaders),
              requestBody: body,
              status,
              responseHeaders: responseHeaders.filter(([name]) => name.toLowerCase() !== 'content-encoding'),
              responseBody,
              origin: target.origin + target.pathname.replace(/\/+$/, ''),
              // Decoded bodies have other offsets: the pieces' timing is kept for plain ones only.
              timing: encoding === undefined ? timing : undefined,
            }),
          )
          recorded.then(
            (result) => report(lineOf(method, path, status, result), result),
            (failure: Error) =>
              report(failure instanceof TooLargeError ? `${method} ${pathOnly(path)} ${status} not recorded: its ${encoding} body ${failure.message} (the limit for a compressed answer)` : `${method} ${pathOnly(path)} ${status} not recorded: ${failure.message}`, undefined),
          )
          track(recorded).finally(answered).catch(() => undefined)
        })
      })
    })
  }

  const server = createServer(handle)
  const host = options.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 9999, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  // A target that is this very listener would send every request back to itself: refused before any request.
  if (await targetIsListener(target, address)) {
    await new Promise((resolve) => server.close(resolve))
    throw new Error(formatMessage(`cannot record: the target ${options.target} is this recorder's own address (port ${address.port}), so every request would come back to it. Point --target at the real back end, or listen on another --port.`))
  }
  let stopping: Promise<RecordSummary> | undefined
  return {
    url: localUrlOf(host, address),
    host,
    port: address.port,
    server,
    routesFile: writer.routesFile,
    summary: () => writer.summary(),
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        // Keep-alive connections go as soon as their request in flight is answered; after 10 s, all go.
        const idle = setInterval(() => server.closeIdleConnections(), 50)
        const all = setTimeout(() => server.closeAllConnections(), 10_000)
        server.close(() => {
          clearInterval(idle)
          clearTimeout(all)
          resolve()
        })
        server.closeIdleConnections()
      }).then(async () => {
        while (pending.size > 0) await Promise.allSettled([...pending])
        return writer.summary()
      })
      return stopping
    },
  }
}

/** The request's path and query on a placeholder origin: only they are recorded. */
function targetlessUrl(path: string): string {
  if (path.startsWith('/')) return new URL(path, 'http://recorded.invalid').href
  const absolute = new URL(path)
  return new URL(absolute.pathname + absolute.search, 'http://recorded.invalid').href
}

/** A path for the log, without its query (query values may be secrets). */
function pathOnly(path: string): string {
  const q = path.indexOf('?')
  return q === -1 ? path : path.slice(0, q) + '?…'
}

/** The per-request line: what came in, what it answered and where it went. */
export function lineOf(method: string, path: string, status: number, result: RecordResult): string {
  const where = result.clash ? 'not written (clash, see the summary)' : result.skipped ? `not recorded: ${result.skipped}` : `-> ${result.route} ${result.method}${result.file ? ` (${result.file})` : ''}`
  return `${method} ${pathOnly(result.path === undefined ? path : result.path + (path.includes('?') ? '?' : ''))} ${status} ${where}`
}
