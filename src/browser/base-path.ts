/**
 * Vite's `base` as the page sees it, and the dev server's own paths under it. Pure functions
 * (no msw, no DOM), so that they can be checked outside a browser.
 */
import { CONFIG_PATH } from './config.js'

/**
 * The path the Vite app is served under, ending in `/`: `import.meta.env.BASE_URL`, which Vite
 * writes into every module it serves or bundles (dependencies included). The Vite plugin serves
 * its URLs under the same path (`/app/@mockyard/config.json`, `/app/mockServiceWorker.js`).
 * `/` outside Vite, and for a base that is not a path (`./`, a full URL): the plugin then serves
 * from the root as well.
 *
 * @example
 * viteBase({ BASE_URL: '/app' }) // '/app/'
 * viteBase(undefined)            // '/'
 */
export function viteBase(env: { BASE_URL?: unknown } | undefined = (import.meta as ImportMeta & { env?: { BASE_URL?: unknown } }).env): string {
  const base = env?.BASE_URL
  if (typeof base !== 'string' || !base.startsWith('/')) return '/'
  return base.endsWith('/') ? base : base + '/'
}

/**
 * Where `startWorker()` fetches the route table when given neither `config` nor `configUrl`:
 * `/@mockyard/config.json` under the base.
 *
 * @example
 * defaultConfigUrl('/app/') // '/app/@mockyard/config.json'
 */
export function defaultConfigUrl(base: string = viteBase()): string {
  return base + CONFIG_PATH.slice(1)
}

/** The first segment of the dev server's own paths (modules, its client, the plugin's files). */
const INTERNAL_PATHS = /^(@vite|@fs|@id|@react-refresh|@mockyard|node_modules|src|__vite|\.vite)(\/|$)/

/**
 * Whether a path of the page's origin is the dev server's own traffic (`/@vite/client`,
 * `/@id/…`, `/@fs/…`, `/src/…`, `/node_modules/…`, `/@mockyard/…`): under the base when the
 * path is under it (`/app/@id/…` with `base: '/app/'`), else at the root.
 *
 * @example
 * isDevServerPath('/app/@id/virtual:mockyard', '/app/') // true
 * isDevServerPath('/app/v1/users', '/app/')             // false
 */
export function isDevServerPath(pathname: string, base = '/'): boolean {
  const rest = base !== '/' && pathname.startsWith(base) ? pathname.slice(base.length) : pathname.slice(1)
  return INTERNAL_PATHS.test(rest)
}
