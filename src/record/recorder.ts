import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname } from 'node:path'
import { formatMessage } from '../core/errors.js'
import { errorResponse } from '../core/build-response.js'
import { DEFAULT_BODY_LIMIT_BYTES } from '../core/defaults.js'
import { cameBack, ForwardError, forwardErrorTitle, forwarderName, forwardRequest, LOOP_HEADER, parseTarget, responseHeadersToSend, shownTarget, targetIsListener, UPSTREAM_TIMEOUT_MS } from '../forward/forward.js'
import { answerThenDrain, payloadTooLarge, readBody } from '../forward/body.js'
import { canDecode, decodeStreaming, removeTemporaryFiles, Spool, type DecodedBody, TIMING_LIMIT, TooLargeError } from './exchange.js'
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
  /** What has been recorded so far (`requests` counts those answered but not recorded too). */
  summary(): RecordSummary
  /**
   * Deletes this process's temporary files at once (bodies being spooled or written): for a
   * forced exit, whose writes in flight will never finish. `stop()` needs none of it.
   */
  discardTemporaryFiles(): void
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
  // The target as messages show it: a password in it is never printed, nor sent to a client.
  const shown = shownTarget(options.target)
  if (typeof target === 'string') throw new Error(formatMessage(`cannot record: the target ${target}. Give the back end's base URL, such as --target http://localhost:8080.`))
  // Each request's own query is what goes to the back end: one in the target would be dropped unsaid.
  if (target.search !== '') throw new Error(formatMessage(`cannot record: the target ${shown} has a query (${target.search}), and mockyard record sends each request's own query, not the target's. Give the back end's base URL without a query, such as --target ${shownTarget(target.origin + target.pathname)}.`))
  const writer = createRecordWriter({ out: options.out ?? 'mocks', redact: options.redact })
  const pending = new Set<Promise<unknown>>()
  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise)
    promise.finally(() => pending.delete(promise)).catch(() => undefined)
    return promise
  }
  const report = options.onRecord ?? (() => undefined)
  /** Requests answered without reaching the writer (refused, broken off): the summary counts them too. */
  let unrecorded = 0

  const name = forwarderName()
  const timeoutMs = options.timeoutMs ?? UPSTREAM_TIMEOUT_MS

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const method = (req.method ?? 'GET').toUpperCase()
    const path = req.url ?? '/'
    // One line per request, whatever happens to it.
    let lined = false
    const notRecorded = (why: string) => {
      if (lined) return
      lined = true
      unrecorded++
      report(`${method} ${pathOnly(path)} ${why}`, undefined)
    }
    /** mockyard's own answer, not recorded: the target failed, the path or the body was refused, a loop. */
    const refuse = (error: Error) => {
      const status = error instanceof ForwardError ? error.status : 502
      const reason = (error as NodeJS.ErrnoException).code ?? error.message
      // https:// to a port that speaks plain HTTP: the TLS handshake reads an HTTP answer.
      const notTls = target.protocol === 'https:' && (reason === 'EPROTO' || reason === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number|packet length too long/i.test(error.message))
      const message =
        status === 400 ? `${method} ${pathOnly(path)} was not forwarded: ${error.message}. Send a path without ".." segments`
        : status === 508 ? `${method} ${pathOnly(path)} came back to this recorder: the target ${shown} leads back to it, so it was not forwarded again. Point --target at the real back end`
        : status === 504 ? `${method} ${pathOnly(path)} could not be recorded: the target ${shown} did not answer in time (${error.message}). Check that the back end answers, or raise --timeout`
        : notTls ? `${method} ${pathOnly(path)} could not be recorded: the target ${shown} does not speak TLS on that port (${reason}). Use http:// in --target`
        : `${method} ${pathOnly(path)} could not be recorded: the target ${shown} did not answer (${reason}). Start the back end, or fix --target`
      const answer = errorResponse(status, forwardErrorTitle(error), message, { target: shown })
      if (status === 508) answer.headers[LOOP_HEADER] = name
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body as string) })
        res.end(answer.body)
      }
      notRecorded(`${status} not recorded: ${notTls ? `the target does not speak TLS (${reason}), use http://` : status === 502 ? `the target did not answer (${reason})` : status === 504 ? 'the target did not answer in time' : status === 508 ? 'the request came back to this recorder (a loop)' : 'the path leaves the target\'s base path'}`)
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
        answerThenDrain(req, res, payloadTooLarge(method, pathOnly(path), new Error(`${bodyError.message} (mockyard record keeps each body in memory to write it)`), MAX_BODY, 'Send a smaller body: mockyard record takes request bodies up to 50 MiB, a limit it has no option for'))
        notRecorded(`413 not recorded: the body is over ${MAX_BODY} bytes`)
        return
      }
      let answered: () => void = () => undefined
      track(new Promise<void>((resolve) => (answered = resolve)))
      let upstream: IncomingMessage | undefined
      // A client that goes before its answer is complete releases the connection to the target.
      res.on('close', () => {
        if (res.writableFinished) return
        notRecorded(upstream ? `${upstream.statusCode} not recorded: the client went before its answer was complete` : 'not recorded: the client went before the target answered')
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
          notRecorded(`${status} not recorded: the request came back to this recorder (a loop)`)
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
        response.on('error', (error: NodeJS.ErrnoException) => {
          notRecorded(`${status} not recorded: the target broke off the answer after ${received.size} bytes (${error.code ?? error.message})`)
          received.discard()
          res.destroy()
          answered()
        })
        response.on('end', () => {
          res.end()
          const raw = received.finish()
          const responseHeaders = pairsOf(response.rawHeaders)
          const encoding = response.headers['content-encoding']
          let encoded: string | undefined
          const recorded = (raw === null ? Promise.resolve<DecodedBody>({ body: null }) : decodeStreaming(raw, encoding, writer.dataFolder)).then((decoded) => {
            encoded = decoded.encoded
            return writer.add({
              method,
              url: targetlessUrl(path),
              requestHeaders: pairsOf(req.rawHeaders),
              requestBody: body,
              status,
              // A decoded body no longer has its coding; one kept as it came keeps it, so the mock
              // sends the very bytes and header the back end sent.
              responseHeaders: encoded === undefined ? responseHeaders.filter(([name]) => name.toLowerCase() !== 'content-encoding') : responseHeaders,
              responseBody: decoded.body,
              origin: target.origin + target.pathname.replace(/\/+$/, ''),
              // Decoded bodies have other offsets: the pieces' timing is kept for plain ones only.
              timing: encoding === undefined ? timing : undefined,
            })
          })
          recorded.then(
            (result) => report(lineOf(method, path, status, result) + (encoded !== undefined && result.file ? keptEncoded(encoded, options.redact) : ''), result),
            (failure: Error) =>
              failure instanceof TooLargeError ? notRecorded(`${status} not recorded: its ${encoding} body ${failure.message} (the limit for a compressed answer)`) : report(`${method} ${pathOnly(path)} ${status} not recorded: ${failure.message}`, undefined),
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
    throw new Error(formatMessage(`cannot record: the target ${shown} is this recorder's own address (port ${address.port}), so every request would come back to it. Point --target at the real back end, or listen on another --port.`))
  }
  let stopping: Promise<RecordSummary> | undefined
  const withUnrecorded = (summary: RecordSummary): RecordSummary => ({ ...summary, requests: summary.requests + unrecorded })
  return {
    url: localUrlOf(host, address),
    host,
    port: address.port,
    server,
    routesFile: writer.routesFile,
    summary: () => withUnrecorded(writer.summary()),
    discardTemporaryFiles: () => removeTemporaryFiles([dirname(writer.routesFile), writer.dataFolder], 'own'),
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
        return withUnrecorded(writer.summary())
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

/** What a log line adds for a body written still encoded: why, and that --redact could not search it. */
function keptEncoded(encoding: string, redact: readonly string[] | undefined): string {
  const coding = encoding.trim().toLowerCase()
  const unknown = coding.split(',').map((c) => c.trim()).find((c) => c !== '' && c !== 'identity' && !canDecode(c))
  const why = unknown === undefined ? 'its bytes did not decode' : unknown === 'zstd' ? `zstd needs Node 22.15 or later, this is ${process.version}` : `mockyard cannot decode ${unknown}`
  const redacted = redact && redact.length > 0 ? '; --redact could not search it, so its fields were not redacted' : ''
  return ` (body kept ${coding}-encoded: ${why}${redacted})`
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
