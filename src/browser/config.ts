import type { RoutesConfig } from '../core/types.js'

/**
 * One routes file as the browser receives it: the routes as written and where their data files
 * are. Plain JSON, so a dev server can send it and an app can import it.
 *
 * @example
 * const source: SerializedSource = { file: 'inline', routes: { 'v1/hello': { file: 'hello.txt' } }, files: { 'hello.txt': 'hi' } }
 */
export interface SerializedSource {
  /** The routes file's path (or a label), for messages. */
  file: string
  /** The routes, as in the routes file. */
  routes: RoutesConfig
  /**
   * Where the data files are fetched from: `dataUrl + name`. A relative URL resolves from the
   * config's own URL when the config was fetched, else from the page.
   */
  dataUrl?: string
  /**
   * Data files shipped inline (small text files, or bytes when the config is built in code).
   * Looked up before `dataUrl`.
   */
  files?: Record<string, string | Uint8Array>
}

/**
 * The route table in transit: what the Vite plugin serves at `/@mockyard/config.json` and exports
 * from `virtual:mockyard`, and what an app without Vite passes to `startWorker({ config })`.
 *
 * @example
 * const config: SerializedConfig = {
 *   sources: [{ file: 'routes.json', routes: { 'v1/users': { file: 'users.json' } }, dataUrl: '/mocks/data/' }],
 *   latency: 0,
 * }
 */
export interface SerializedConfig {
  /** Routes files in order: later ones override earlier ones (plugins first). */
  sources: SerializedSource[]
  /** Global latency in ms (default 250 in the browser). */
  latency?: number
  /** The value of `${context}` in text files; by default the origin of each request. */
  pluginContext?: string
  /** Where the worker script is served (default `/mockServiceWorker.js`). */
  workerUrl?: string
  /** A configuration that failed to load: the message, printed in the page's console. */
  error?: string
  /** Load warnings (unknown keys, missing data files), printed in the page's console. */
  warnings?: string[]
}

/**
 * Where the Vite plugin serves the serialized config, under Vite's `base` (`/app/@mockyard/config.json`
 * with `base: '/app/'`).
 *
 * @example
 * const config = (await (await fetch(CONFIG_PATH)).json()) as SerializedConfig
 */
export const CONFIG_PATH = '/@mockyard/config.json'
/**
 * Where the Vite plugin serves data files: `/@mockyard/data/<folder>/<file>`.
 *
 * @example
 * await fetch(`${DATA_PATH}0/users.json`)
 */
export const DATA_PATH = '/@mockyard/data/'
/**
 * Where msw's worker script is served by default.
 *
 * @example
 * await startWorker({ serviceWorker: { url: WORKER_PATH } })
 */
export const WORKER_PATH = '/mockServiceWorker.js'
