import { bypass } from 'msw'
import { formatMessage } from '../core/errors.js'
import type { FileSource } from '../core/types.js'
import { isInsideFolder } from '../core/validate-routes.js'

export interface FetchFilesOptions {
  /** The URL a relative `dataUrl` resolves from. Default: the page's URL. */
  base?: string
}

/**
 * A `FileSource` that fetches data files from a URL (`dataUrl + name`), through msw's
 * `bypass()` so the worker never intercepts its own file loads. Bytes come back as they are
 * (binary stays binary); each file is fetched once per page load. Names that would leave the
 * folder (`..`, absolute) read as missing; a `404` reads as missing too.
 *
 * @example
 * const files = fetchFiles('/@mockyard/data/0/')
 * const bytes = await files.read('users.json')
 */
export function fetchFiles(dataUrl: string, options: FetchFilesOptions = {}): FileSource {
  const base = new URL(dataUrl.endsWith('/') ? dataUrl : dataUrl + '/', options.base ?? globalThis.location?.href)
  const cache = new Map<string, Promise<Uint8Array | undefined>>()
  return {
    label: base.href,
    read(name) {
      const key = name.replace(/\\/g, '/').replace(/^(\.\/)+/, '')
      if (!isInsideFolder(key)) return Promise.resolve(undefined)
      let cached = cache.get(key)
      if (!cached) {
        const url = new URL(key.split('/').map(encodeURIComponent).join('/'), base)
        cached = fetch(bypass(url, { cache: 'no-store' })).then(async (response) => {
          if (response.status === 404) return undefined
          if (!response.ok) {
            throw new Error(formatMessage(`the data file "${key}" could not be fetched from ${url.href}: ${response.status} ${response.statusText}. Check that the dev server serves the data folder there.`))
          }
          return new Uint8Array(await response.arrayBuffer())
        })
        cache.set(key, cached)
        // Only contents are remembered: a missing file or a failed fetch is tried again next time.
        cached.then(
          (bytes) => void (bytes === undefined && cache.get(key) === cached && cache.delete(key)),
          () => void (cache.get(key) === cached && cache.delete(key)),
        )
      }
      return cached
    },
  }
}
