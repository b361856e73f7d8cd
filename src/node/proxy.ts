import type { IncomingMessage, ServerResponse } from 'node:http'
import { errorResponse } from '../core/build-response.js'
import { forwardRequest, parseTarget, responseHeadersToSend } from './forward.js'
import { headerGetter } from './wire.js'
import type { Instance, SentAnswer } from './instance.js'
import type { LogEntry } from '../core/request-log.js'

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
  const target = instance.options.proxy!
  const parsed = parseTarget(target)
  // validateOptions refuses anything else; this keeps a programmatic misuse from throwing.
  const url = typeof parsed === 'string' ? new URL('http://invalid.invalid') : parsed
  const method = (req.method ?? 'GET').toUpperCase()
  const path = req.url ?? '/'
  const requestHeaders = headerGetter(req)
  const started = performance.now()
  const logLine = (status: number) => {
    if (instance.logsRequests) instance.logger.info(`${method} ${path} ${status} proxied to ${target} ${Math.round(performance.now() - started)}ms`)
  }
  forwardRequest(url, { method, url: path, rawHeaders: req.rawHeaders, body }, (error, response) => {
    if (error || !response) {
      const reason = (error as NodeJS.ErrnoException | null)?.code ?? error?.message ?? 'no response'
      const answer = errorResponse(
        502,
        'Bad Gateway',
        `${method} ${path} matched no route and was forwarded to the proxy target ${target}, which did not answer (${reason}). Start the back end at ${target}, point the proxy option at one that runs, or add a route for this request`,
        { target, method, url: path },
      )
      instance.engine.finish(answer, { headers: requestHeaders })
      instance.logger.warn(JSON.parse(answer.body as string).message)
      settle({ status: 502, responseHeaders: answer.headers })
      if (!res.headersSent) {
        res.writeHead(502, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body as string) })
        res.end(answer.body)
      }
      return
    }
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
}

