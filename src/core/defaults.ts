/**
 * The defaults that more than one surface applies, spelt once (docs/behaviour.md, "Defaults per
 * surface" and "Options"). Isomorphic: the browser, the harness and the node surfaces read them.
 */

/** The latency of the surfaces a person watches (CLI, middleware, `MockServer`, the browser), in ms. */
export const DEFAULT_LATENCY_MS = 250

/** The largest request body the listener and the middleware read, as the `limit` option spells it. */
export const DEFAULT_BODY_LIMIT = '50mb'
/** The same limit in bytes. */
export const DEFAULT_BODY_LIMIT_BYTES = 50 * 1024 * 1024

/** How many records the request log keeps (`requestLog.limit`). */
export const DEFAULT_LOG_LIMIT = 1000
