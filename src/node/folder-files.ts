import { readFileSync, watch, type FSWatcher } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { relative, resolve, sep } from 'node:path'
import { isInsideFolder } from '../core/validate-routes.js'
import type { FileSource } from '../core/types.js'

export interface FolderFiles extends FileSource {
  readonly root: string
  /** The absolute path of a data file, or `undefined` when the name leaves the folder. */
  pathOf(name: string): string | undefined
  /**
   * Reads a file now, synchronously, and keeps it (`undefined` when it is missing or outside the
   * folder). For loading: a thousand small files take milliseconds this way, against a tenth of a
   * second through `fs/promises`, whose every read is four trips through the thread pool.
   */
  load(name: string): Uint8Array | undefined
  /** Forgets cached contents (all, or of one file). */
  invalidate(name?: string): void
  /** Starts dropping cached copies of files that change (idempotent). */
  watch(): void
  close(): void
}

/**
 * A `FileSource` over a data folder. Names can never reach outside the folder. Contents are
 * read once and kept; with `watch`, a change to a file drops its cached copy, so an edited
 * file is served on the next request without a read per request.
 */
export function folderFiles(root: string, options: { watch?: boolean; onChange?: (name: string) => void } = {}): FolderFiles {
  const absoluteRoot = resolve(root)
  const cache = new Map<string, Promise<Uint8Array | undefined>>()
  /** The settled contents of `cache`, for reads without a wait. */
  const settled = new Map<string, Uint8Array>()
  let watcher: FSWatcher | undefined

  const prefix = absoluteRoot.endsWith(sep) ? absoluteRoot : absoluteRoot + sep
  const pathOf = (name: string) => {
    if (!isInsideFolder(name)) return undefined
    // On POSIX a name isInsideFolder() accepts cannot resolve outside, and a plain one (no `.`
    // segments, no doubled slashes) needs no normalising. On Windows a drive-relative name (`C:x`)
    // can leave the folder, which the check below catches.
    if (sep === '/') return /(^|\/)\.|\/\//.test(name) ? resolve(absoluteRoot, name) : prefix + name
    const path = resolve(absoluteRoot, name)
    const rel = relative(absoluteRoot, path)
    return rel === '' || rel.startsWith('..' + sep) || rel === '..' ? undefined : path
  }

  const startWatching = () => {
    if (watcher) return
    try {
      watcher = watch(absoluteRoot, { recursive: true, persistent: false }, (_event, filename) => {
        if (!filename) {
          cache.clear()
          settled.clear()
        } else {
          const name = filename.toString().split(sep).join('/')
          cache.delete(name)
          settled.delete(name)
          options.onChange?.(name)
        }
      })
      watcher.on('error', () => {
        cache.clear()
        settled.clear()
      })
    } catch {
      // A folder that does not exist yet: nothing to watch, nothing cached.
    }
  }
  if (options.watch) startWatching()

  const keyOf = (name: string) => (name.includes('\\') || name.startsWith('./') ? name.replace(/\\/g, '/').replace(/^(\.\/)+/, '') : name)

  return {
    root: absoluteRoot,
    label: absoluteRoot,
    pathOf,
    load(name) {
      const key = keyOf(name)
      const known = settled.get(key)
      if (known) return known
      const path = pathOf(key)
      if (!path) return undefined
      let buffer: Buffer
      try {
        buffer = readFileSync(path)
      } catch {
        return undefined
      }
      const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
      settled.set(key, bytes)
      cache.set(key, Promise.resolve(bytes))
      return bytes
    },
    read(name) {
      const key = keyOf(name)
      let cached = cache.get(key)
      if (!cached) {
        const path = pathOf(key)
        const pending: Promise<Uint8Array | undefined> = path
          ? readFile(path).then(
              (buffer) => {
                const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
                if (cache.get(key) === pending) settled.set(key, bytes)
                return bytes
              },
              () => undefined,
            )
          : Promise.resolve(undefined)
        cached = pending
        cache.set(key, cached)
        // A missing file is not remembered: it may be added later.
        void cached.then((bytes) => {
          if (bytes === undefined && cache.get(key) === cached) cache.delete(key)
        })
      }
      return cached
    },
    readCached(name) {
      return settled.get(name) ?? settled.get(keyOf(name))
    },
    invalidate(name) {
      if (name === undefined) {
        cache.clear()
        settled.clear()
      } else {
        cache.delete(name)
        settled.delete(name)
      }
    },
    watch: startWatching,
    close() {
      watcher?.close()
    },
  }
}
