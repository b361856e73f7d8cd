import { lstatSync, realpathSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'

/**
 * Watches a set of files, and nothing else (docs/behaviour.md, "Live reload and the working
 * folder"): one non-recursive OS watch per folder holding a watched file, whose events are
 * filtered by name. A folder that is deleted, renamed away or not there yet is followed through
 * its nearest existing ancestor (one watch, filtered by the next name on the way down) until it
 * exists again; then it is watched again and every watched file in it counts as changed. A
 * symlinked folder is also watched as a name in its parent, to see it pointed elsewhere. A change
 * is reported once its events settle (never later than MAX_WAIT_MS) and its file holds still.
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
/**
 * The longest a change waits for quiet: a file that never stops changing (a log a route names,
 * a generator touching a file every few ms) must not hold back the others.
 */
const MAX_WAIT_MS = 300
/**
 * A file modified less than this long ago may still be being written (a generator writing it
 * slowly, a large copy): its change waits until it holds still, and its last good copy in memory
 * is served meanwhile. Never longer than MAX_HOLD_MS, for a file that is never still.
 */
const HOLD_MS = 100
const MAX_HOLD_MS = 2000

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
  /** When the first of the pending events came (see MAX_WAIT_MS). */
  let pendingSince: number | undefined
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
  // A folder in use that is a symlink (`mocks/data -> data-v1`), or lies under one, is watched
  // through its target: re-pointing the link (`ln -sfn data-v2 mocks/data`) or replacing it with a
  // real folder changes nothing there. The link itself is watched as a name in its parent, and
  // `linkedFolders` holds what it led to, to tell a new target from an event of the same one.
  const linkedFolders = new Map<string, string | undefined>()
  const isSymlink = (path: string) => {
    try {
      return lstatSync(path).isSymbolicLink()
    } catch {
      return false
    }
  }
  /** The paths with the real paths of those that are symlinks, remembering the way back, and the symlinked folders above them. */
  const withTargets = (paths: Iterable<string>): string[] => {
    const all: string[] = []
    const folderPaths = new Set<string>()
    for (const path of paths) {
      const absolute = resolve(path)
      all.push(absolute)
      folderPaths.add(dirname(absolute))
      const real = realOf(absolute)
      if (real === undefined) continue
      link(absolute, real)
      all.push(real)
    }
    // Once per folder, and only below the first ancestor that is its own real path.
    for (let path of folderPaths) {
      while (dirname(path) !== path && !linkedFolders.has(path) && realOf(path) !== undefined) {
        if (isSymlink(path)) {
          linkedFolders.set(path, realOf(path))
          all.push(path)
        }
        path = dirname(path)
      }
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
    pendingSince ??= Date.now()
    clearTimeout(timer)
    timer = setTimeout(flush, Math.max(0, Math.min(SETTLE_MS, pendingSince + MAX_WAIT_MS - Date.now())))
  }

  /** Since when each file still being written has been held back. */
  const heldSince = new Map<string, number>()
  const flush = () => {
    const paths = pending
    pending = new Set()
    pendingSince = undefined
    if (closed) return
    // One stat per changed file, on reload only: a file still being written is not reported yet.
    const now = Date.now()
    for (const path of paths) {
      let stats: Stats | undefined
      try {
        stats = statSync(path, { throwIfNoEntry: false })
      } catch {
        stats = undefined
      }
      const since = heldSince.get(path) ?? now
      if (stats?.isFile() && now - Math.max(stats.mtimeMs, stats.ctimeMs) < HOLD_MS && now - since < MAX_HOLD_MS) {
        heldSince.set(path, since)
        paths.delete(path)
        pending.add(path)
      } else heldSince.delete(path)
    }
    if (pending.size > 0) {
      pendingSince = now
      timer = setTimeout(flush, HOLD_MS)
    }
    if (paths.size === 0) return
    // A symlinked folder pointed elsewhere, or replaced by a real folder: the folder is another
    // one, as if moved in whole. Its watches follow the new one and all its files count as
    // changed (reported by `arm`, with their new targets followed below in the next round).
    for (const path of paths) {
      if (!linkedFolders.has(path)) continue
      const now = realOf(path)
      if (now === linkedFolders.get(path)) continue
      linkedFolders.set(path, now)
      for (const folder of folders.values()) if (folder.path === path || folder.path.startsWith(path + sep)) arm(folder, false)
    }
    // A symlink saved again may lead elsewhere now: follow its new target.
    const moved: string[] = []
    for (const path of paths) {
      if (linkedFolders.has(path)) continue
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
        // The ancestor itself deleted or moved away (`rm -rf mocks/data` while `data/users` is
        // awaited) is reported under its own name, and its watch is dead: wait on the next one up.
        if (!name || name === next || name === basename(ancestor)) arm(folder, false)
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

  /**
   * Watches again the folders below `path` whose watch no longer follows the folder at their path,
   * and those waiting for their folder to appear: the ancestor they wait on may be the one that
   * was replaced.
   */
  const rearmBelow = (path: string) => {
    for (const below of folders.values()) {
      if (!below.path.startsWith(path + sep)) continue
      const now = statDirectory(below.path)
      if (below.waiting || (now === undefined ? below.identity !== undefined : identityOf(now) !== below.identity)) arm(below, false)
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
      linkedFolders.clear()
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
