/**
 * A loaded mockyard instance served in process: `startInterception()` wired to
 * `instance.respond()` (extra handlers, then the routes, with the request log), with the
 * instance's explanations for requests nothing answers. `setupMockServer()` (mockyard/vitest)
 * uses it; `bench/in-process.mjs` measures it.
 */
import { toFetchResponse } from '../core/fetch-request.js'
import { formatMessage } from '../core/errors.js'
import { surfaceRequestFromFetch, type Instance } from '../config/instance.js'
import { startInterception, type Interception } from './interception/index.js'

export interface InstanceInterception extends Interception {
  /**
   * The explanations of the requests failed under `onUnhandledRequest: 'error'` since the last
   * call, oldest first; the list starts empty again.
   */
  takeUnmatched(): string[]
  /** Forgets the explanations kept for requests not yet explained (between tests). */
  clearExplanations(): void
}

/**
 * Intercepts fetch, http/https and XMLHttpRequest for any host and answers through `instance`.
 * A request nothing answers follows the instance's `onUnhandledRequest` (default `'error'`),
 * explained by the engine (why no route matched); `'warn'` goes to the instance's logger.
 *
 * @example
 * const instance = await createInstance({ routes: 'mocks/routes.json' }, { latency: 0, watch: false, logLevel: 'error' })
 * const interception = interceptInstance(instance)
 * // ... fetch('http://api.test/v1/users') is answered by the routes ...
 * interception.dispose()
 */
export function interceptInstance(instance: Instance): InstanceInterception {
  const strategy = instance.options.onUnhandledRequest ?? 'error'
  const unmatched: string[] = []
  /** `METHOD url` -> the engine's explanation, kept from resolve() until explain() asks for it. */
  const explanations = new Map<string, string>()
  const interception = startInterception({
    strategy,
    async resolve(request) {
      const outcome = await instance.respond(surfaceRequestFromFetch(request))
      if (outcome.kind === 'route') return toFetchResponse(outcome.response)
      if (outcome.kind === 'handler') return outcome.response
      // Nothing answers in process: recorded as such (status 0), then failed, warned or let through.
      outcome.settle({ status: 0 })
      explanations.set(`${request.method} ${request.url}`, outcome.explanation())
      return undefined
    },
    explain(request) {
      const key = `${request.method} ${request.url}`
      const explanation = explanations.get(key) ?? formatMessage(`no route answers ${key}.`)
      explanations.delete(key)
      if (strategy === 'error') unmatched.push(explanation)
      return explanation
    },
    warn: (message) => instance.logger.warn(message),
  })
  return {
    dispose: () => interception.dispose(),
    takeUnmatched: () => unmatched.splice(0),
    clearExplanations: () => explanations.clear(),
  }
}
