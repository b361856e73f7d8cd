/**
 * The config source of the node surfaces: loads the config, the routes files and their data
 * folders; with live reload, watches the files the config uses and reloads, keeping the last good
 * table while the config is broken (docs/behaviour.md, "Live reload and the working folder").
 * It knows nothing of requests: it reports each new table to its owner (see ARCHITECTURE.md).
 */
import { existsSync } from 'node:fs'
import { isAbsolute, relative } from 'node:path'
import type { RouteSource } from '../core/compile-routes.js'
import { ConfigError, formatMessage, formatProblem } from '../core/errors.js'
import { listFiles } from '../core/validate-routes.js'
import { folderFiles, type FolderFiles } from './folder-files.js'
import { markConfigChanged, parseJsonFile, readResolvedRoutes, readRoutes, withCurrentData, type ReadRoutesResult, type ResolvedConfig } from './load-config.js'
import { watchFiles, type FileWatch } from './watcher.js'

/** The state of live reload (docs/behaviour.md, "The dashboard"). */
export interface ReloadStatus {
  /** Reloads so far (successful or not). */
  count: number
  /** When the last one ran (ISO 8601). */
  at?: string
  /** Its error, while the config is broken and the last good table is served. */
  error?: string
}

/** A new good table: the config it came from (and the one before), its sources. */
export interface TableChange {
  config: ResolvedConfig
  previous: ResolvedConfig
  sources: RouteSource[]
}

/** Where the source reports reloads, warnings and errors. */
export interface SourceLogger {
  info(message: string): void
  warn(message: string): void
  error(message: unknown): void
}

export interface ConfigSource {
  /** The last good config. */
  readonly config: ResolvedConfig
  /** The last good routes (in order, plugins first), bound to their data folders. */
  readonly sources: RouteSource[]
  /** Warnings of the routes of the last good load (missing data files...); those of the first load are not printed. */
  readonly warnings: ReadRoutesResult['warnings']
  readonly reloads: ReloadStatus
  /** The data folder `data` (one per folder, shared by everything that reads it). */
  filesFor(data: string): FolderFiles
  /**
   * Starts live reload: watches the config file, the routes files and the data files the routes
   * (and `extraLayers()`, the overrides) name. `onTable` runs after each good reload.
   */
  watch(logger: SourceLogger, extraLayers: () => RouteSource[], onTable: (change: TableChange) => void): void
  /** Where reloads report when the source does not watch itself (the Vite plugin watches with Vite's watcher). */
  useLogger(logger: SourceLogger): void
  /**
   * Reloads now (and the config file when `configChanged`); resolves once the reloads queued are
   * done. `changed`, the absolute paths of the files that changed, words the log line: when they
   * are all data files, it names them (`data file mocks/data/users.json changed`), not the routes.
   */
  reload(configChanged: boolean, changed?: readonly string[]): Promise<void>
  /** Every data file is read afresh from now on. */
  invalidate(): void
  /** The layers changed: follow the files they name now. */
  follow(): void
  close(): void
}

export interface OpenOptions {
  /**
   * Whether the data files the routes name are read and checked at each load (see `readRoutes`),
   * yes unless this says no (asked once, with the first resolved config, whose `logProvider` may
   * show warnings). When not, each file is read on first use, synchronously: for in-process use
   * (Vitest), where the test waits for the answer anyway and a synchronous read costs far less.
   */
  checkFiles?: (config: ResolvedConfig) => boolean
}

/**
 * Loads a config with `resolve` (options and config file) and reads its routes. Throws the
 * config's problems as one `ConfigError`.
 *
 * @example
 * const source = await openConfigSource(() => resolveConfig('mocks/config.js'))
 * source.watch(logger, () => [], ({ sources }) => pipeline.setSources(sources))
 */
export async function openConfigSource(resolve: () => Promise<ResolvedConfig>, options: OpenOptions = {}): Promise<ConfigSource> {
  /** Set by the first load: whether the data folders read on first use (see OpenOptions). */
  let readOnFirstUse = false
  // The data folders are made while loading. They watch nothing themselves: with live reload the
  // source watches the files the routes name (see `follow` below).
  const folders = new Map<string, FolderFiles>()
  const filesFor = (data: string) => {
    let files = folders.get(data)
    if (!files) {
      files = folderFiles(data, { syncReads: readOnFirstUse })
      folders.set(data, files)
    }
    return files
  }
  let config: ResolvedConfig = await resolve()
  readOnFirstUse = options.checkFiles?.(config) === false
  let { sources, warnings }: ReadRoutesResult = await readResolvedRoutes(config, filesFor, !readOnFirstUse)

  const reloads: ReloadStatus = { count: 0 }
  let logger: SourceLogger | undefined
  let closed = false
  let extraLayers: () => RouteSource[] = () => []
  let onTable: (change: TableChange) => void = () => {}
  /** Data file paths, with the folders and names that serve them. */
  let dataPaths = new Map<string, Array<{ files: FolderFiles; name: string }>>()
  let routesPaths = new Set<string>()
  let fileWatch: FileWatch | undefined

  const follow = () => {
    if (!fileWatch) return
    const data = new Map<string, Array<{ files: FolderFiles; name: string }>>()
    for (const source of [...sources, ...extraLayers()]) {
      const files = source.files as Partial<FolderFiles>
      if (typeof files.pathOf !== 'function' || typeof files.invalidate !== 'function') continue
      for (const { name } of listFiles(source.routes)) {
        const path = files.pathOf(name)
        if (path === undefined) continue
        let users = data.get(path)
        if (!users) data.set(path, (users = []))
        if (!users.some((user) => user.files === files && user.name === name)) users.push({ files: files as FolderFiles, name })
      }
    }
    dataPaths = data
    routesPaths = new Set(config.routes.flatMap((spec) => (typeof spec.routes === 'string' ? [spec.routes] : [])))
    fileWatch.set([...data.keys(), ...routesPaths, ...(config.configFile ? [config.configFile] : [])])
  }

  let reloading: Promise<void> | undefined
  let reloadAgain: { config: boolean; changed?: string[] } | undefined
  /** Reloads the routes (and, when it changed, the config file); one reload at a time. */
  const reload = (configChanged: boolean, changed?: readonly string[]): void => {
    if (reloading) {
      // A reload asked without its files is about the routes: the queued one then says so.
      const files = reloadAgain && !reloadAgain.changed ? undefined : changed && [...(reloadAgain?.changed ?? []), ...changed]
      reloadAgain = { config: configChanged || (reloadAgain?.config ?? false), changed: files }
      return
    }
    reloading = reloadNow(configChanged, changed).finally(() => {
      reloading = undefined
      const again = reloadAgain
      reloadAgain = undefined
      if (again && !closed) reload(again.config, again.changed)
    })
  }
  /**
   * The reload's log lines: the data files when only data files changed (the lines the watcher
   * logs, see dataChangeLines), else the routes files or config file read again.
   */
  const reloadLines = (configChanged: boolean, changed: readonly string[] | undefined): string[] => {
    const dataOnly = !configChanged && changed !== undefined && changed.length > 0 && changed.every((path) => path !== config.configFile && !config.routes.some((spec) => spec.routes === path))
    if (dataOnly) return dataChangeLines([...new Set(changed)])
    const names = config.routes.filter((r) => typeof r.routes === 'string').map((r) => r.label)
    return [`routes reloaded from ${configChanged && config.configFile ? config.configFile : names.join(', ')}`]
  }
  const reloadNow = async (configChanged: boolean, changed?: readonly string[]) => {
    try {
      let nextConfig = config
      if (configChanged && config.configFile) {
        markConfigChanged(config.configFile)
        nextConfig = await resolve()
        if (nextConfig.problems.length > 0) throw new ConfigError(nextConfig.problems, { warnings: nextConfig.warnings })
        for (const warning of nextConfig.warnings) logger?.warn(formatMessage(formatProblem(warning)))
      }
      // A routes file without a data option takes its `data` subfolder once one exists.
      const routes = nextConfig.routes.map(withCurrentData)
      const moved = routes.filter((spec, index) => spec !== nextConfig.routes[index])
      if (moved.length > 0) nextConfig = { ...nextConfig, routes }
      const next = await readRoutes(nextConfig.routes, filesFor, !readOnFirstUse)
      for (const warning of next.warnings) logger?.warn(formatMessage(formatProblem(warning)))
      const previous = config
      config = nextConfig
      sources = next.sources
      warnings = next.warnings
      onTable({ config, previous, sources })
      follow()
      Object.assign(reloads, { count: reloads.count + 1, at: new Date().toISOString(), error: undefined })
      for (const line of reloadLines(configChanged, changed)) logger?.info(formatMessage(line))
      for (const spec of moved) logger?.info(formatMessage(`the data folder of ${shownPath(spec.label)} is now ${shownPath(spec.data)} (without a data option, a routes file's data subfolder is used whenever it exists).`))
    } catch (error) {
      Object.assign(reloads, { count: reloads.count + 1, at: new Date().toISOString(), error: error instanceof Error ? error.message : String(error) })
      logger?.error(error instanceof ConfigError ? error.message + '\n' + formatMessage('keeping the last good routes.') : error)
    }
  }

  return {
    get config() {
      return config
    },
    get sources() {
      return sources
    },
    get warnings() {
      return warnings
    },
    reloads,
    filesFor,
    watch(log, layers, listener) {
      logger = log
      extraLayers = layers
      onTable = listener
      fileWatch = watchFiles((paths) => {
        let configChanged = false
        let routesChanged = false
        const dataChanged: string[] = []
        for (const path of paths) {
          if (path === config.configFile) configChanged = true
          if (routesPaths.has(path)) routesChanged = true
          const users = dataPaths.get(path)
          if (!users) continue
          for (const { files, name } of users) files.invalidate(name)
          dataChanged.push(path)
        }
        for (const line of dataChangeLines(dataChanged)) log.info(formatMessage(line))
        // A JSON data file saved broken is served as written, with the warning the load gives.
        for (const path of dataChanged) {
          const warning = jsonWarning(path, dataPaths.get(path)?.[0])
          if (warning) log.warn(formatMessage(warning))
        }
        if (configChanged || routesChanged) reload(configChanged)
      }, (folder, error) => {
        log.warn(formatMessage(`cannot watch ${folder} (${error.code ?? error.message}): edits there are not reloaded. Raise the system's limit of file watches (fs.inotify.max_user_watches on Linux), or restart mockyard after editing.`))
      })
      follow()
    },
    follow,
    useLogger(log) {
      logger = log
    },
    async reload(configChanged, changed) {
      reload(configChanged, changed)
      while (reloading) await reloading
    },
    invalidate() {
      for (const files of folders.values()) files.invalidate()
    },
    close() {
      closed = true
      fileWatch?.close()
      fileWatch = undefined
    },
  }
}

/** A path as it reads best in a log line: relative to the working folder when inside it. */
function shownPath(path: string): string {
  const shown = relative(process.cwd(), path)
  return shown === '' || shown.startsWith('..') || isAbsolute(shown) ? path : shown
}

const utf8 = new TextDecoder()

/**
 * The warning for a changed `.json` data file that does not parse, naming where (line and
 * column), or `undefined`. It reads the file into the cache (the next request is served from
 * memory); an empty file is served as an empty body and is no warning, as at load.
 */
function jsonWarning(path: string, user: { files: FolderFiles; name: string } | undefined): string | undefined {
  if (!user || !path.endsWith('.json')) return undefined
  const bytes = user.files.load(user.name)
  if (bytes === undefined || bytes.byteLength === 0) return undefined
  const { problem } = parseJsonFile(utf8.decode(bytes), shownPath(path))
  if (!problem) return undefined
  return formatProblem({
    ...problem,
    message: `${problem.message.replace(/^invalid JSON/, `the data file "${user.name}" is not valid JSON`)}; it is served as written`,
    fix: 'Fix the JSON in the file if clients should parse it.',
  })
}

/** The first few of many paths, then how many more (`a, b, c and 17 more`). */
function someOf(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(', ')
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown
}

/**
 * The log lines of data files changed at once (a save, a `git checkout`, a folder removed): one
 * for those that changed and one for those that are gone, each naming a few, not a line per file,
 * as shown paths (docs/behaviour.md words them the same).
 */
function dataChangeLines(paths: readonly string[]): string[] {
  const gone: string[] = []
  const changed: string[] = []
  for (const path of paths) (existsSync(path) ? changed : gone).push(shownPath(path))
  const lines: string[] = []
  if (changed.length === 1) lines.push(`data file ${changed[0]} changed, served fresh from now on`)
  else if (changed.length > 1) lines.push(`${changed.length} data files changed, served fresh from now on: ${someOf(changed)}`)
  if (gone.length === 1) lines.push(`data file ${gone[0]} removed, it answers 404 until it is back`)
  else if (gone.length > 1) lines.push(`${gone.length} data files removed, they answer 404 until they are back: ${someOf(gone)}`)
  return lines
}
