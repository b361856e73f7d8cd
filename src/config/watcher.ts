import { realpathSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'

/**
 * Watches a set of files, and nothing else (docs/behaviour.md, "Live reload and the working
 * folder"): one non-recursive OS watch per folder holding a watched file, whose events are
 * filtered by name. A folder that is deleted, renamed away or not there yet is followed through
 * its nearest existing ancestor (one watch, filtered by the next name on the way down) until it
 * exists again; then it is watched again and every watched file in it counts as changed.
 */
export interface FileWatch {
  /** Replaces the set of watched files (absolute paths). Folders no longer used stop being watched. */
  set(paths: Iterable<string>): void
  /** Adds files to the set. */
  add(paths: Iterable<string>): void
  /** The number of OS watches open (for tests and diagnostics). */
  readonly size: number
  close(): void
}

/** Quiet time after the last event before a change is reported: one save is several events. */
const SETTLE_MS = 50

interface Folder {
  readonly path: string
  /** Base names of the watched files in this folder. */
  readonly names: Set<string>
  watcher?: FSWatcher
  /** Identity of the folder the watcher is on, to notice a folder replaced under the same name. */
  identity?: string
  /** True while the folder is missing and its ancestor is watched instead. */
  waiting: boolean
}

const identityOf = (stats: Stats) => `${stats.dev}:${stats.ino}`

function statDirectory(path: string): Stats | undefined {
  try {
    const stats = statSync(path, { throwIfNoEntry: false })
    return stats?.isDirectory() ? stats : undefined
  } catch {
    return undefined
  }
}

/**
 * Starts watching nothing; `set()` names the files. `onChange` gets the changed paths once the
 * events of a save have settled.
 *
 * @example
 * const files = watchFiles((paths) => console.log('changed', paths))
 * files.set(['/app/mocks/routes.json', '/app/mocks/data/users.json'])
 */
export function watchFiles(onChange: (paths: Set<string>) => void, onError?: (folder: string, error: NodeJS.ErrnoException) => void): FileWatch {
  const folders = new Map<string, Folder>()
  let pending = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  let closed = false

  // A watched file that is a symlink (or lies in a symlinked folder) is edited through its target,
  // whose events carry the target's name: the target is watched too, and its changes are reported
  // under the watched path. `links` holds each watched path's real path (when it differs),
  // `aliases` the way back.
  const links = new Map<string, string>()
  const aliases = new Map<string, Set<string>>()
  const link = (path: string, real: string) => {
    links.set(path, real)
    let back = aliases.get(real)
    if (!back) aliases.set(real, (back = new Set()))
    back.add(path)
  }
  const unlink = (path: string) => {
    const real = links.get(path)
    if (real === undefined) return
    links.delete(path)
    const back = aliases.get(real)
    back?.delete(path)
    if (back?.size === 0) aliases.delete(real)
  }
  const realOf = (path: string): string | undefined => {
    try {
      const real = realpathSync.native(path)
      return real === path ? undefined : real
    } catch {
      return undefined
    }
  }
  /** The paths with the real paths of those that are symlinks, remembering the way back. */
  const withTargets = (paths: Iterable<string>): string[] => {
    const all: string[] = []
    for (const path of paths) {
      const absolute = resolve(path)
      all.push(absolute)
      const real = realOf(absolute)
      if (real === undefined) continue
      link(absolute, real)
      all.push(real)
    }
    return all
  }

  const report = (folder: Folder, name?: string) => {
    if (closed) return
    const add = (path: string) => {
      pending.add(path)
      for (const original of aliases.get(path) ?? []) pending.add(original)
    }
    if (name === undefined) for (const each of folder.names) add(folder.path + sep + each)
    else add(folder.path + sep + name)
    clearTimeout(timer)
    timer = setTimeout(() => {
      const paths = pending
      pending = new Set()
      if (closed) return
      // A symlink saved again may lead elsewhere now: follow its new target.
      const moved: string[] = []
      for (const path of paths) {
        const before = links.get(path)
        const now = realOf(path)
        if (now === before) continue
        unlink(path)
        if (now !== undefined) {
          link(path, now)
          moved.push(now)
        }
      }
      if (moved.length > 0) api.add(moved)
      onChange(paths)
    }, SETTLE_MS)
  }

  /** Folders whose watch failed, reported once each (out of OS watches: ENOSPC, EMFILE). */
  const failed = new Set<string>()
  const fail = (path: string, error: unknown) => {
    if (failed.has(path)) return
    failed.add(path)
    onError?.(path, error as NodeJS.ErrnoException)
  }

  const disarm = (folder: Folder) => {
    folder.watcher?.close()
    folder.watcher = undefined
    folder.identity = undefined
  }

  /** Watches the folder itself, or, while it is missing, its nearest existing ancestor. */
  const arm = (folder: Folder, initial: boolean) => {
    if (closed || folders.get(folder.path) !== folder) return
    // Watching the folder itself until now (not waiting for it to appear).
    const wasWatched = folder.identity !== undefined
    disarm(folder)
    const stats = statDirectory(folder.path)
    if (stats) {
      try {
        const watcher = watch(folder.path, { persistent: false }, (event, filename) => {
          const name = filename?.toString()
          if (name === undefined || name === '') return report(folder)
          if (folder.names.has(name)) report(folder, name)
          // The folder itself deleted or moved away: inotify reports it under the folder's own
          // name. Its watch is dead then, so watch again (the inode number of a folder created
          // again under the name is often the same, so only a child of that name asks for more).
          if (event === 'rename' && name === basename(folder.path)) {
            const now = statDirectory(folder.path)
            const child = statSync(join(folder.path, name), { throwIfNoEntry: false })
            if (!now || !child || identityOf(now) !== folder.identity) arm(folder, false)
          }
        })
        watcher.on('error', () => {
          if (folder.watcher === watcher) setTimeout(() => arm(folder, false), SETTLE_MS).unref()
        })
        folder.watcher = watcher
        folder.identity = identityOf(stats)
        const wasWaiting = folder.waiting
        folder.waiting = false
        // Files may have changed while the folder was not watched: they count as changed.
        if (!initial || wasWaiting) report(folder)
        // A folder moved in whole (`mv mocks.new mocks`) brings its own subfolders: a watch of
        // the one it replaced is on the old inode, moved away with it.
        if (!initial) rearmBelow(folder.path)
        return
      } catch (error) {
        // Gone between the stat and the watch: follow it through an ancestor.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return fail(folder.path, error)
      }
    }
    // Moved or deleted away: what was read from it is gone too.
    if (wasWatched && !initial) report(folder)
    folder.waiting = true
    let ancestor = dirname(folder.path)
    while (!statDirectory(ancestor) && dirname(ancestor) !== ancestor) ancestor = dirname(ancestor)
    const next = relative(ancestor, folder.path).split(sep)[0]
    try {
      const watcher = watch(ancestor, { persistent: false }, (_event, filename) => {
        const name = filename?.toString()
        if (!name || name === next) arm(folder, false)
      })
      watcher.on('error', () => {
        if (folder.watcher === watcher) setTimeout(() => arm(folder, false), SETTLE_MS).unref()
      })
      folder.watcher = watcher
    } catch (error) {
      return fail(ancestor, error)
    }
    // Created between the stat and the watch: watch it now.
    if (statDirectory(folder.path)) arm(folder, false)
  }

  /** Watches again the folders below `path` whose watch no longer follows the folder at their path. */
  const rearmBelow = (path: string) => {
    for (const below of folders.values()) {
      if (!below.path.startsWith(path + sep)) continue
      const now = statDirectory(below.path)
      if (now === undefined ? below.identity !== undefined : identityOf(now) !== below.identity) arm(below, false)
    }
  }

  const group = (paths: Iterable<string>) => {
    const wanted = new Map<string, Set<string>>()
    for (const path of paths) {
      const absolute = resolve(path)
      const folder = dirname(absolute)
      let names = wanted.get(folder)
      if (!names) wanted.set(folder, (names = new Set()))
      names.add(basename(absolute))
    }
    return wanted
  }

  const api: FileWatch = {
    add(paths) {
      if (closed) return
      for (const [path, names] of group(withTargets(paths))) {
        const known = folders.get(path)
        if (known) {
          for (const name of names) known.names.add(name)
          continue
        }
        const folder: Folder = { path, names, waiting: false }
        folders.set(path, folder)
        arm(folder, true)
      }
    },
    set(paths) {
      if (closed) return
      links.clear()
      aliases.clear()
      const wanted = group(withTargets(paths))
      for (const [path, folder] of folders) {
        if (!wanted.has(path)) {
          folders.delete(path)
          disarm(folder)
        }
      }
      for (const [path, names] of wanted) {
        const known = folders.get(path)
        if (known) {
          known.names.clear()
          for (const name of names) known.names.add(name)
          // Another folder under the same path now (swapped in whole): watch that one.
          const now = statDirectory(path)
          if (known.identity !== undefined && (now === undefined || identityOf(now) !== known.identity)) arm(known, false)
          continue
        }
        const folder: Folder = { path, names, waiting: false }
        folders.set(path, folder)
        arm(folder, true)
      }
    },
    get size() {
      let count = 0
      for (const folder of folders.values()) if (folder.watcher) count++
      return count
    },
    close() {
      closed = true
      clearTimeout(timer)
      for (const folder of folders.values()) disarm(folder)
      folders.clear()
    },
  }
  return api
}
