import type { IncomingMessage, ServerResponse } from 'node:http'
import { errorResponse } from '../core/build-response.js'
import { cameBack, ForwardError, forwardErrorTitle, forwarderName, forwardRequest, LOOP_HEADER, parseTarget, responseHeadersToSend, shownTarget } from '../forward/forward.js'
import { headerGetter } from './wire.js'
import type { Instance, SentAnswer } from '../config/instance.js'
import type { LogEntry } from '../harness/request-log.js'

/**
 * Forwards a request no route or handler answered to the `proxy` target and writes the real
 * answer back (status, headers minus hop-by-hop ones, body streamed). A target that cannot be
 * reached answers 502 JSON naming it. Nothing is written to disk. See docs/behaviour.md,
 * "Record, import and proxy". The request is recorded (`settle`) once the status is known.
 */
export function proxyUnmatched(
  instance: Instance,
  req: IncomingMessage,
  res: ServerResponse,
  body: Uint8Array | null,
  settle: (sent: SentAnswer) => LogEntry,
  head: boolean,
): void {
  const given = instance.options.proxy!
  // As messages show it: a password in the URL masked (it is sent, as Basic auth, never shown).
  const target = shownTarget(given)
  const parsed = parseTarget(given)
  // validateOptions refuses anything else; this keeps a programmatic misuse from throwing.
  const url = typeof parsed === 'string' ? new URL('http://invalid.invalid') : parsed
  const method = (req.method ?? 'GET').toUpperCase()
  const path = req.url ?? '/'
  const requestHeaders = headerGetter(req)
  const started = performance.now()
  const logLine = (status: number) => {
    if (instance.logsRequests) instance.logger.info(`${method} ${path} ${status} proxied to ${target} ${Math.round(performance.now() - started)}ms`)
  }
  const refuse = (error: Error) => {
    const status = error instanceof ForwardError ? error.status : 502
    const reason = (error as NodeJS.ErrnoException).code ?? error.message
    const message =
      status === 400 ? `${method} ${path} matched no route and was not forwarded to the proxy target ${target}: ${error.message}. Send a path without ".." segments`
      : status === 508 ? `${method} ${path} came back to the mockyard that forwarded it: the proxy target ${target} leads back to this server, so it was not forwarded again. Point the proxy option at the real back end`
      : status === 504 ? `${method} ${path} matched no route and was forwarded to the proxy target ${target}, which did not answer in time (${error.message}). Check that the back end at ${target} answers, or add a route for this request`
      : `${method} ${path} matched no route and was forwarded to the proxy target ${target}, which did not answer (${reason}). Start the back end at ${target}, point the proxy option at one that runs, or add a route for this request`
    const answer = errorResponse(status, forwardErrorTitle(error), message, { target, method, url: path })
    if (status === 508) answer.headers[LOOP_HEADER] = name
    instance.engine.finish(answer, { headers: requestHeaders })
    instance.logger.warn(JSON.parse(answer.body as string).message)
    settle({ status, responseHeaders: answer.headers })
    if (!res.headersSent && !res.destroyed) {
      res.writeHead(status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body as string) })
      res.end(answer.body)
    }
  }
  const name = nameOf(instance)
  if (cameBack(req.rawHeaders, name)) return refuse(new ForwardError(508, 'a loop'))
  let response: IncomingMessage | undefined
  // A client that goes before its answer is complete releases the connection to the target.
  const giveUp = forwardRequest(url, { method, url: path, rawHeaders: req.rawHeaders, body, via: name }, (error, answer) => {
    if (error || !answer) return refuse(error ?? new Error('no response'))
    response = answer
    const headers = responseHeadersToSend(response)
    // The real back end's CORS answer stands; where it gives none, mockyard's applies as on every response.
    if (headers['access-control-allow-origin'] === undefined) instance.engine.finish({ status: 0, headers: headers as Record<string, string>, body: null }, { headers: requestHeaders })
    const status = response.statusCode ?? 502
    // Recorded now: the duration covers the round trip, and the dashboard shows the target's
    // headers too (the log redacts secrets, as everywhere).
    settle({ status, responseHeaders: Object.entries(headers).flatMap(([name, value]): Array<[string, string]> => (value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : String(value)]])) })
    res.writeHead(status, response.statusMessage, headers)
    if (head) {
      response.resume()
      res.end()
      logLine(status)
      return
    }
    response.on('error', () => res.destroy())
    response.pipe(res)
    res.on('finish', () => logLine(status))
  })
  res.on('close', () => {
    if (res.writableFinished) return
    giveUp()
    response?.destroy()
  })
}

/** Each instance's forwarder name (its `Via` entry), made on its first proxied request. */
const names = new WeakMap<Instance, string>()

function nameOf(instance: Instance): string {
  let name = names.get(instance)
  if (!name) names.set(instance, (name = forwarderName()))
  return name
}

