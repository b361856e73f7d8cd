/**
 * The page's requests that are not calls to its back end (docs/browser.md, "What the worker
 * answers"): the dev server's own traffic, page loads and the page's static assets. Pure
 * functions over a Fetch `Request` (no msw, no DOM), so that they can be checked outside a browser.
 */
import { isDevServerPath } from './base-path.js'

/**
 * Scripts, source maps and WebAssembly, styles, images, fonts and media, by extension. Data
 * formats (`.json`, `.xml`, `.csv`, `.txt`…) are not here: `/v1/users.json` is an API call, and
 * a typo in one deserves the unmatched warning.
 */
const STATIC_ASSET = /\.(m?jsx?|cjs|m?tsx?|cts|map|wasm|s?css|sass|less|styl|gif|jpe?g|png|apng|avif|webp|bmp|ico|svg|ttf|otf|woff2?|eot|mp4|m4v|webm|ogg|ogv|oga|mov|mp3|m4a|wav|flac|aac|vtt|webmanifest)$/i

/** Hosts that serve only static assets. */
const ASSET_HOSTS = /(^|\.)fonts\.(googleapis|gstatic)\.com$/

/**
 * Whether the routes leave a request alone, whatever they hold: the dev server's own traffic
 * (`/@vite/…`, `/src/…`, under Vite's `base` too, on the page's origin). A catch-all route (`*`,
 * `/`, `:name`) would otherwise answer a lazy-loaded module or an HMR update with a mock.
 *
 * @example
 * isDevServerTraffic(new Request('http://localhost:5173/src/lazy.ts'), '/', 'http://localhost:5173') // true
 * isDevServerTraffic(new Request('http://localhost:5173/v1/users'), '/', 'http://localhost:5173')    // false
 */
export function isDevServerTraffic(request: Request, base: string, pageOrigin: string | undefined = globalThis.location?.origin): boolean {
  const url = new URL(request.url)
  return url.origin === pageOrigin && isDevServerPath(url.pathname, base)
}

/**
 * Whether a request is a page load (a navigation: a link, a reload, an iframe, a form sent).
 * Like a static asset, only a route under a literal path answers it (`answersAssets`): a link to
 * `/v1/report` gets the mocked file, a reload of the app never a catch-all's JSON.
 */
export function isPageLoad(request: Request): boolean {
  return request.mode === 'navigate'
}

/**
 * Whether a request is for one of the page's static assets: a script, a style, an image, a font
 * or a medium (by the path's extension, or an `<img>`'s or a stylesheet's `Accept`). Such a
 * request that no route answers passes without a warning, whatever `onUnhandledRequest` says.
 *
 * @example
 * isStaticAsset(new Request('http://localhost/logo.png'))       // true
 * isStaticAsset(new Request('http://localhost/v1/users.json')) // false
 */
export function isStaticAsset(request: Request): boolean {
  const url = new URL(request.url)
  if (url.protocol === 'file:' || ASSET_HOSTS.test(url.hostname)) return true
  if (STATIC_ASSET.test(url.pathname)) return true
  const accept = request.headers.get('accept') ?? ''
  return accept.startsWith('image/') || accept.startsWith('text/css')
}

/**
 * Whether a route key may answer a static asset or a page load: a key whose first segment is a
 * literal (`avatars/:id`, `img/*`, `logo.png`, `v1/report`). A pattern at the root (`*`, `:name`)
 * or `/` is a catch-all for the back end's calls, not for the page itself, its `/favicon.ico` or
 * its `public/` files.
 *
 * @example
 * answersAssets('avatars/:id') // true
 * answersAssets('*')           // false
 */
export function answersAssets(key: string): boolean {
  const first = key.replace(/^\/+/, '').split('/')[0] ?? ''
  return first !== '' && first !== '*' && !first.startsWith(':')
}
