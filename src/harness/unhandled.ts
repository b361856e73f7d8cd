/**
 * The unhandled-request policy, once for every surface (msw's `onUnhandledRequest` style): a
 * request nothing answers is let through (`'bypass'`), let through with a warning (`'warn'`) or
 * failed (`'error'`), always with the engine's explanation of that request. Each surface supplies
 * only what "let through" and "fail" mean for it (the network, `next()`, a network error).
 */

/** What a surface does with a request that neither a handler nor a route answers. */
export type UnhandledRequestStrategy = 'error' | 'warn' | 'bypass'

/** The strategies, in the order the messages name them. */
export const UNHANDLED_STRATEGIES: readonly UnhandledRequestStrategy[] = ['error', 'warn', 'bypass']

/** Whether a value (from options or a config file) is a strategy. */
export function isUnhandledStrategy(value: unknown): value is UnhandledRequestStrategy {
  return (UNHANDLED_STRATEGIES as readonly unknown[]).includes(value)
}

/**
 * A request nothing answered, and why: what a resolver returns instead of a response, so that
 * the explanation travels with its own request (two identical requests at once each keep theirs).
 * The explanation is computed only when the strategy needs it (not under `'bypass'`).
 */
export class Unanswered {
  constructor(readonly explanation: () => string) {}
}

/**
 * A request a handler let through on purpose (msw's `passthrough()`): it goes on to the network
 * whatever the strategy, with no warning and no failure.
 */
export class PassedThrough extends Unanswered {
  constructor() {
    super(() => '')
  }
}

/** Whether a handler's response is msw's `passthrough()` marker (a 302 with `x-msw-intention: passthrough`). */
export function isPassthrough(response: Response): boolean {
  return response.headers.get('x-msw-intention') === 'passthrough'
}

/** Whether a request was sent with msw's `bypass()`: no handler or route may answer it. */
export function isBypassed(request: Request): boolean {
  return request.headers.get('accept')?.includes('msw/passthrough') === true
}

/** What one surface does with an unanswered request. */
export interface UnhandledActions<T> {
  /** The request goes on: to the network, to `next()`, to msw's next handler. */
  fallThrough(): T
  /** The request fails with the explanation. */
  fail(explanation: string): T
  /** Where `'warn'` prints the explanation (the request then falls through). */
  warn(explanation: string): void
}

/**
 * Applies the strategy to one unanswered request.
 *
 * @example
 * return applyUnhandled(strategy, unanswered.explanation, {
 *   fallThrough: () => undefined,
 *   fail: (text) => new TypeError(text),
 *   warn: (text) => console.warn(text),
 * })
 */
export function applyUnhandled<T>(strategy: UnhandledRequestStrategy, explanation: () => string, actions: UnhandledActions<T>): T {
  if (strategy === 'bypass') return actions.fallThrough()
  const text = explanation()
  if (strategy === 'error') return actions.fail(text)
  actions.warn(text)
  return actions.fallThrough()
}
