import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { readFile, realpath, stat } from 'node:fs/promises'
import { dirname, posix, relative, resolve, sep } from 'node:path'
import { isInsideFolder } from '../core/validate-routes.js'
import type { FileSource } from '../core/types.js'
import { closestFileName } from './closest-name.js'

export interface FolderFiles extends FileSource {
  readonly root: string
  /** The absolute path of a data file, or `undefined` when the name leaves the folder. */
  pathOf(name: string): string | undefined
  /**
   * Reads a file now, synchronously, and keeps it (`undefined` when it is missing or outside the
   * folder). For loading: far faster than `fs/promises`, whose every read is four trips through
   * the thread pool (bench/README.md, "Reading data files at load").
   */
  load(name: string): Uint8Array | undefined
  /**
   * Whether the name is a symlink (or lies under one) whose real path leads outside the real
   * path of the folder: such a file is never served.
   */
  leadsOutside(name: string): boolean
  /** The file of the folder closest in name to a missing one (`userz.json` -> `users.json`), if one is close. */
  closestName(name: string): string | undefined
  /** Forgets cached contents (all, or of one file) and the folder's real path. */
  invalidate(name?: string): void
}

/**
 * A `FileSource` over a data folder. Names can never reach outside the folder, and neither can
 * symlinks: a file whose real path is outside the folder's real path is not served
 * (docs/behaviour.md, "Security"). Contents are read once and kept until `invalidate`: with live
 * reload the config source watches the files the routes name and invalidates a changed one, so an
 * edited file is served on the next request without a read per request.
 */
export interface FolderFilesOptions {
  /**
   * `readCached` reads a file not in memory yet synchronously (as `load` does) instead of leaving
   * it to `read`: for in-process use, where files are not read at load (config-source.ts).
   */
  syncReads?: boolean
}

export function folderFiles(root: string, options: FolderFilesOptions = {}): FolderFiles {
  const absoluteRoot = resolve(root)
  const cache = new Map<string, Promise<Uint8Array | undefined>>()
  /** The settled contents of `cache`, for reads without a wait. */
  const settled = new Map<string, Uint8Array>()

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

  // Symlinks: the real path of a file must lie inside the real path of the folder.
  let realRoot: string | undefined
  const realPrefix = () => {
    if (realRoot === undefined) {
      try {
        const real = realpathSync.native(absoluteRoot)
        realRoot = real.endsWith(sep) ? real : real + sep
      } catch {
        return undefined
      }
    }
    return realRoot
  }
  const insideReal = (real: string) => {
    const prefix = realPrefix()
    return prefix !== undefined && real.startsWith(prefix)
  }

  const keyOf = (name: string) => (name.includes('\\') || name.startsWith('./') ? name.replace(/\\/g, '/').replace(/^(\.\/)+/, '') : name)

  const files: FolderFiles = {
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
        if (!insideReal(realpathSync.native(path))) return undefined
        // A pipe or a device named as a data file would block the read (or never end): not a file.
        if (!statSync(path).isFile()) return undefined
        buffer = readFileSync(path)
      } catch {
        return undefined
      }
      // Kept as node's Buffer: a socket writes it as it is, where a plain Uint8Array gets a Buffer
      // made over it on every write (bench/README.md, "Counted instructions").
      settled.set(key, buffer)
      cache.set(key, Promise.resolve(buffer))
      return buffer
    },
    read(name) {
      const key = keyOf(name)
      let cached = cache.get(key)
      if (!cached) {
        const path = pathOf(key)
        const pending: Promise<Uint8Array | undefined> = path
          ? realpath(path)
              .then((real) => {
                if (!insideReal(real)) throw new Error('outside the data folder')
                return stat(path)
              })
              .then((stats) => {
                // A pipe or a device named as a data file would block the read (or never end).
                if (!stats.isFile()) throw new Error('not a regular file')
                return readFile(path)
              })
              .then(
                (buffer) => {
                  if (cache.get(key) === pending) settled.set(key, buffer)
                  return buffer
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
      const bytes = settled.get(name) ?? settled.get(keyOf(name))
      // A missing file stays for read() (and its 404); load() does not remember it.
      return bytes === undefined && options.syncReads ? files.load(name) : bytes
    },
    leadsOutside(name) {
      const path = pathOf(keyOf(name))
      if (!path) return false
      try {
        return !insideReal(realpathSync.native(path))
      } catch {
        return false
      }
    },
    closestName(name) {
      // Only asked for a name that is missing (a warning, a 404): the folder is listed then, not kept.
      const key = keyOf(name)
      const path = pathOf(key)
      if (!path) return undefined
      let names: string[]
      try {
        names = readdirSync(dirname(path), { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name)
      } catch {
        return undefined
      }
      const close = closestFileName(posix.basename(key), names)
      const folder = posix.dirname(key)
      return close === undefined ? undefined : folder === '.' ? close : `${folder}/${close}`
    },
    invalidate(name) {
      if (name === undefined) {
        cache.clear()
        settled.clear()
        realRoot = undefined
      } else {
        const key = keyOf(name)
        cache.delete(key)
        settled.delete(key)
        // The folder itself may be another one now (a symlinked data folder pointed elsewhere):
        // its real path is worked out again on the next read.
        realRoot = undefined
      }
    },
  }
  return files
}
