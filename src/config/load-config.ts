import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { RequestHandler, WebSocketHandler } from 'msw'
import type { RouteSource } from '../core/compile-routes.js'
import { ConfigError, toPointer, type ConfigProblem } from '../core/errors.js'
import type { RoutesConfig } from '../core/types.js'
import { listFiles, validateRoutes } from '../core/validate-routes.js'
import { closestFileName, closestName } from './closest-name.js'
import type { FolderFiles } from './folder-files.js'
import { readTextFile } from './read-text.js'
import { knownOptions, validateOptions, type MockyardOptions, type MockyardPlugin } from './options.js'

/** The folder of the bundled example mocks (`mocks/` of this package). */
// A path, not `new URL('…', import.meta.url)`: Vite rewrites that form into a web address when
// mockyard is inlined under a browser-like test environment (happy-dom, jsdom).
export const BUNDLED_MOCKS = join(dirname(fileURLToPath(import.meta.url)), '../../mocks/')

/** One routes file (or inline routes object) to read, and the data folder its files live in. */
export interface RoutesSpec {
  /** Absolute path, or the routes object itself. */
  routes: string | RoutesConfig
  /** Label for an inline object (`options#/routes/0`, `plugin my-plugin`). */
  label: string
  data: string
  /**
   * Set when no data folder was given: the folder whose `data` subfolder (else itself) serves the
   * files. Live reload looks again, so a `data` subfolder made while the listener runs is used.
   */
  dataBeside?: string
  /**
   * Set when a relative `routes` or `data` path of a config file names nothing from the file's
   * folder but exists from the working directory (where @availity/mock-server read it): the fix
   * to give instead of the usual one (`workingDirectoryFix`).
   */
  fromWorkingDirectory?: { routes?: WorkingDirectoryPath; data?: WorkingDirectoryPath }
}

/** The spec with its default data folder looked up again (a `data` subfolder may have appeared). */
export function withCurrentData(spec: RoutesSpec): RoutesSpec {
  if (spec.dataBeside === undefined) return spec
  const data = defaultDataFor(spec.dataBeside)
  return data === spec.data ? spec : { ...spec, data }
}

export interface ResolvedConfig {
  /** The options, with paths made absolute. */
  options: MockyardOptions
  /** The config file the options came from, if any. */
  configFile?: string
  /** Plugins' routes first, then the local ones: later ones override earlier ones. */
  routes: RoutesSpec[]
  /** `options.handlers`, then the plugins' handlers. */
  handlers: Array<RequestHandler | WebSocketHandler>
  /** Problems of the options and plugins (`loadConfig` throws them with the routes' ones). */
  problems: ConfigProblem[]
  /** Warnings about the options: unknown names (docs/behaviour.md, "Options"). */
  warnings: ConfigProblem[]
  /** Whether the bundled example mocks are served (nothing to serve was named). */
  bundled: boolean
}

/** How `resolveConfig` treats options that name nothing to serve, and names a surface adds. */
export interface ResolveSettings {
  /** Serve the bundled example mocks when no routes, plugins, handlers or config file are named. */
  bundled?: boolean
  /** Names the surface accepts besides the options (the Vite plugin's `config`, `build`). */
  extraNames?: readonly string[]
}

/** The bundled mocks' config file. */
export const BUNDLED_CONFIG = join(BUNDLED_MOCKS, 'config.js')

const CONFIG_NAMES = ['config.js', 'config.mjs', 'config.json']

/** Finds the conventional config file `mocks/config.js` (or `.mjs`/`.json`) in a folder. */
export function findConfigFile(cwd = process.cwd()): string | undefined {
  for (const name of CONFIG_NAMES) {
    const path = join(cwd, 'mocks', name)
    if (existsSync(path)) return path
  }
  return undefined
}

/**
 * What the CLI and `mockyard check` load when given neither `--config` nor `--routes`
 * (docs/behaviour.md, "Options"): `mocks/config.*` of the folder, else `mocks/routes.json` with
 * the data folder `--routes mocks/routes.json` would get (`mocks/data`, where `record`, `import`
 * and `init` write), else nothing (the caller falls back to the bundled mocks, or not).
 *
 * @example
 * findLocalMocks('/app') // { routes: '/app/mocks/routes.json', data: '/app/mocks/data' }
 */
export function findLocalMocks(cwd = process.cwd()): { configFile: string } | { routes: string; data: string } | undefined {
  const configFile = findConfigFile(cwd)
  if (configFile) return { configFile }
  const routes = join(cwd, 'mocks', 'routes.json')
  return existsSync(routes) ? { routes, data: defaultDataFor(join(cwd, 'mocks')) } : undefined
}

/**
 * The existing file (or folder) beside a missing path whose name is closest to it, as a path
 * in the same form (`mocks/rotues.json` -> `mocks/routes.json`), for "did you mean" in messages.
 */
export function closestPath(path: string, kind: 'file' | 'folder'): string | undefined {
  let names: string[]
  try {
    names = readdirSync(dirname(path), { withFileTypes: true })
      .filter((entry) => (kind === 'file' ? entry.isFile() : entry.isDirectory()))
      .map((entry) => entry.name)
  } catch {
    return undefined
  }
  const close = kind === 'file' ? closestFileName(basename(path), names) : closestName(basename(path), names)
  return close === undefined ? undefined : join(dirname(path), close)
}

/** `Did you mean X? ` when a path close to a missing one exists, else ''. */
function didYouMean(path: string, kind: 'file' | 'folder'): string {
  const close = closestPath(path, kind)
  return close ? `Did you mean ${close}? ` : ''
}

/** Line and column (1-based) of a character offset, for JSON errors. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return { line, column: offset - before.lastIndexOf('\n') }
}

const utf8 = new TextDecoder()

/** Whether a data file's bytes parse as JSON (checked once at load). */
function isJson(bytes: Uint8Array): boolean {
  // An empty file is served as an empty body (the real @availity/mock-data ships one).
  if (bytes.byteLength === 0) return true
  try {
    JSON.parse(utf8.decode(bytes))
    return true
  } catch {
    return false
  }
}

/** Parses JSON text; a syntax error becomes a problem with line and column. */
export function parseJsonFile(text: string, file: string): { value?: unknown; problem?: ConfigProblem } {
  try {
    return { value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) }
  } catch (error) {
    const message = (error as Error).message
    const position = /position (\d+)/.exec(message)
    const where = /\(line (\d+) column (\d+)\)/.exec(message)
    const at = where ? { line: Number(where[1]), column: Number(where[2]) } : position ? lineAndColumn(text, Number(position[1])) : undefined
    const reason = message.replace(/\s*\(line \d+ column \d+\)/, '').replace(/ in JSON at position \d+/, '')
    return {
      problem: {
        file,
        pointer: '',
        message: `invalid JSON${at ? ` at line ${at.line}, column ${at.column}` : ''}: ${reason}`,
        fix: 'Fix the JSON syntax (a missing comma or quote, or a trailing comma, is the usual cause).',
      },
    }
  }
}

/** Config files changed since they were first imported, and how often (live reload re-imports them). */
const configVersions = new Map<string, number>()

/** Makes the next read of a `.js` config file import it afresh (docs/behaviour.md, "Live reload and the working folder"). */
export function markConfigChanged(path: string): void {
  configVersions.set(path, (configVersions.get(path) ?? 0) + 1)
}

async function importDefault(path: string): Promise<unknown> {
  const version = configVersions.get(path)
  const module = (await import(pathToFileURL(path).href + (version ? `?mockyard-reload=${version}` : ''))) as { default?: unknown }
  return module.default ?? module
}

/** Whether config modules are loaded with `require()`: true in the CommonJS build of mockyard/jest (rolldown.config.mjs). */
const CONFIG_BY_REQUIRE = false

/**
 * Whether a config module failed because it is an ES module loaded with `require()`: the
 * CommonJS build of mockyard/jest loads it through Jest's module system, which cannot.
 */
function requiredAsEsm(cause: unknown): boolean {
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown }
  if (code === 'ERR_REQUIRE_ESM' || /Must use import to load ES Module/.test(String(message))) return true
  // Jest 29 reads the module as CommonJS and stops at its first `import` or `export`.
  return CONFIG_BY_REQUIRE && (cause as Error | undefined)?.name === 'SyntaxError' && /Cannot use import statement outside a module|Unexpected token 'export'/.test(String(message))
}

const ESM_UNDER_REQUIRE =
  "The config is an ES module, and require('mockyard/jest') loads it with Jest's require(), which cannot: write it as CommonJS in a .cjs file (module.exports = { ... }) and pass that path, use a config.json, or import mockyard/jest from an ES module test under Jest's ES module support."

/**
 * The file a `require()` refused as an ES module, as the error names it: Node's and Jest 30's
 * message (`require() of ES Module <path> from ...`, `Must use import to load ES Module: <path>`),
 * or the file Jest 29 failed to parse (its stack: `Details:`, then `<path>:<line>`).
 */
function refusedModule(cause: unknown): string | undefined {
  const { message, stack } = (cause ?? {}) as { message?: unknown; stack?: unknown }
  const named = /Must use import to load ES Module: (\S+)|require\(\) of ES Module (\S+) from /.exec(String(message))
  const path = named?.[1] ?? named?.[2] ?? /Details:\s*\n\s*(\S+?):\d+\n/.exec(String(stack))?.[1]
  return path?.replace(/\.$/, '')
}

/** Whether two paths name one file (a symlinked folder, a file URL). */
function sameFile(a: string, b: string): boolean {
  const real = (path: string) => {
    try {
      return realpathSync(path.startsWith('file:') ? fileURLToPath(path) : path)
    } catch {
      return resolve(path)
    }
  }
  return real(a) === real(b)
}

/**
 * The fix when the config is CommonJS and what it requires is an ES module (`mockyard/notifications`
 * is one): the config is not the one to rewrite. Names the module, and its package when it has one.
 */
function esmDependencyFix(module: string): string {
  const parts = module.split(/[\\/]/)
  const at = parts.lastIndexOf('node_modules')
  const name = at === -1 ? undefined : parts[at + 1]?.startsWith('@') ? `${parts[at + 1]}/${parts[at + 2]}` : parts[at + 1]
  return `The config is CommonJS, but a module it requires is an ES module: ${module}${name ? ` (package ${name})` : ''}. Jest's require() loads ES modules only under Jest's ES module support: run Jest with NODE_OPTIONS=--experimental-vm-modules (Jest 30 then require()s it), or write the config as an ES module (config.mjs) that imports it, loaded from an ES module test (import { setupMockServer } from 'mockyard/jest') under that same option (the way for Jest 29).`
}

/** Reads options from a config file: `.js`/`.mjs` default export, or `.json`. */
async function readConfigFile(path: string): Promise<unknown> {
  let stat
  try {
    stat = statSync(path)
  } catch (cause) {
    throw new ConfigError([{ file: path, pointer: '', message: 'the config file cannot be read', fix: `${didYouMean(path, 'file')}Check the path, or omit it to use the defaults.` }], { cause })
  }
  if (!stat.isFile()) throw new ConfigError([{ file: path, pointer: '', message: 'the config path is not a file', fix: 'Point at a config.js, config.mjs or config.json file.' }])
  if (extname(path) === '.json') {
    const { value, problem } = parseJsonFile(readFileSync(path, 'utf8'), path)
    if (problem) throw new ConfigError([problem])
    return value
  }
  try {
    return await importDefault(path)
  } catch (cause) {
    const esmUnderRequire = requiredAsEsm(cause)
    const where = esmUnderRequire ? '' : whereInModule(cause, path)
    // The ES module may be the config itself, or a module it requires (the error names which).
    const refused = esmUnderRequire ? refusedModule(cause) : undefined
    const esmFix = refused !== undefined && !sameFile(refused, path) ? esmDependencyFix(refused) : ESM_UNDER_REQUIRE
    throw new ConfigError([{ file: path, pointer: '', message: `the config file failed to load: ${String((cause as Error)?.message ?? cause).replace(/\.$/, '')}${where}`, fix: esmUnderRequire ? esmFix : 'Fix the error in the config module; its default export must be the options object.' }], { cause })
  }
}

/**
 * Where in a config module its error is, as ` (line 3, column 14: latency: 10,,)`, or ''. A
 * syntax error of an ES module carries no location (node prints it only when nothing catches
 * it): `node --check` finds it. An error thrown while the module runs names it in its stack.
 */
function whereInModule(cause: unknown, path: string): string {
  let line: number | undefined
  let column: number | undefined
  // Node names a module by its real path (a symlinked /tmp on macOS): both are looked for.
  let real = path
  try {
    real = realpathSync(path)
  } catch {}
  const paths = [...new Set([path, real])]
  if ((cause as Error)?.name === 'SyntaxError') {
    const check = spawnSync(process.execPath, ['--check', path], { encoding: 'utf8', timeout: 10_000 })
    const lines = (check.stderr ?? '').split('\n')
    const at = lines.findIndex((text) => paths.some((name) => text.startsWith(`${name}:`)))
    if (at !== -1) {
      line = Number(/:(\d+)$/.exec(lines[at]!)?.[1])
      const caret = lines[at + 2]?.indexOf('^') ?? -1
      if (caret !== -1) column = caret + 1
    }
  } else {
    const stack = String((cause as Error)?.stack ?? '')
    for (const name of [...paths.map((name) => pathToFileURL(name).href), ...paths]) {
      const at = stack.indexOf(name)
      // A module read again by a live reload carries a query (`config.mjs?mockyard-reload=2`).
      const found = at === -1 ? null : /^(?:\?[^:\s)]*)?:(\d+):(\d+)/.exec(stack.slice(at + name.length))
      if (found) {
        line = Number(found[1])
        column = Number(found[2])
        break
      }
    }
  }
  if (line === undefined || !Number.isInteger(line) || line < 1) return ''
  let source: string | undefined
  try {
    source = readFileSync(path, 'utf8').split('\n')[line - 1]?.trim()
  } catch {}
  return ` (line ${line}${column ? `, column ${column}` : ''}${source ? `: ${source.length > 80 ? `${source.slice(0, 80)}…` : source}` : ''})`
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * Whether a data file exists, without reading it (`undefined`: a name outside its folder). One
 * listing per folder, kept in `listings`, costs a quarter of a stat per file (bench/README.md,
 * "Checking data files at load"); a name the listing lacks is settled by a stat (a disk that
 * ignores case).
 */
function fileExists(path: string | undefined, listings: Map<string, Set<string> | undefined>): boolean {
  if (path === undefined) return false
  const folder = dirname(path)
  if (!listings.has(folder)) {
    let listing: Set<string> | undefined
    try {
      listing = new Set(readdirSync(folder))
    } catch {
      listing = undefined
    }
    listings.set(folder, listing)
  }
  if (listings.get(folder)?.has(basename(path))) return true
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false
}

/** The data folder to use beside a routes file: its `data` subfolder if present, else its own. */
export function defaultDataFor(folder: string): string {
  const data = join(folder, 'data')
  return existsSync(data) ? data : folder
}

/**
 * Resolves a plugin name the way `import()` would from a module in `from` (the config file's
 * folder): Node's ESM resolution with its `node` and `import` conditions, nested conditions and
 * subpath patterns included (through `import-meta-resolve`, the algorithm of
 * `import.meta.resolve`, whose parent argument Node keeps behind a flag). A package that only
 * has `require` entries falls back to `require.resolve`.
 */
async function resolvePlugin(name: string, from: string): Promise<string> {
  if (name.startsWith('.') || name.startsWith('/')) return resolve(from, name)
  const parent = pathToFileURL(join(from, 'noop.js')).href
  try {
    // Loaded only for plugins named by package: most configs name none.
    const { resolve: resolveImport } = await import('import-meta-resolve')
    const url = resolveImport(name, parent)
    if (url.startsWith('file:')) return fileURLToPath(url)
  } catch (error) {
    try {
      return createRequire(join(from, 'noop.js')).resolve(name)
    } catch {
      throw error
    }
  }
  throw new Error(`"${name}" is not a file module`)
}

/** A config file's relative path that exists only from the working directory, and what to write instead. */
interface WorkingDirectoryPath {
  /** The path as the config file writes it (`./mocks/data`). */
  value: string
  /** The same target written relative to the config file (`./data`). */
  suggested: string
  /** The whole fix, for the problem or warning about this path. */
  fix: string
}

/**
 * A relative path of a config file that names nothing from the file's folder while the same
 * path exists from the working directory, with its fix; else undefined. @availity/mock-server read
 * `routes` and `data` from the working directory, so its configs wrote `./mocks/routes.json` in
 * `mocks/config.js`; mockyard reads them from the config file's folder (docs/behaviour.md,
 * "Defaults per surface"), which doubles the folder. The rule stays; the message says why and what to write.
 *
 * @example
 * // in /app, with /app/mocks/routes.json:
 * workingDirectoryPath('routes', './mocks/routes.json', '/app/mocks/config.js', 'file')
 * // { value: './mocks/routes.json', suggested: './routes.json', fix: 'Relative paths in a config file resolve from its folder (/app/mocks): …("./routes.json")…' }
 */
function workingDirectoryPath(option: 'routes' | 'data', value: string, configFile: string, kind: 'file' | 'folder'): WorkingDirectoryPath | undefined {
  if (isAbsolute(value)) return undefined
  const folder = dirname(configFile)
  const named = resolve(folder, value)
  const fromCwd = resolve(value)
  const exists = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false })
    return kind === 'file' ? stat?.isFile() === true : stat?.isDirectory() === true
  }
  if (named === fromCwd || exists(named) || !exists(fromCwd)) return undefined
  const written = relative(folder, fromCwd).split(sep).join('/')
  const suggested = written === '..' || written.startsWith('../') ? written : `./${written}`
  const fix = `Relative paths in a config file resolve from its folder (${folder}): the ${option} option "${value}" of ${configFile} names ${named}. @availity/mock-server read them from the working directory, where ${fromCwd} exists. Write the path relative to the config file ("${suggested}") or absolute.`
  return { value, suggested, fix }
}

/** Makes the path options absolute: `data`, `routes` and relative plugin paths. */
function absolutePaths(options: MockyardOptions, base: string): MockyardOptions {
  const out = { ...options }
  if (out.data) out.data = resolve(base, out.data)
  if (typeof out.validate === 'string') out.validate = resolve(base, out.validate)
  if (typeof out.routes === 'string') out.routes = resolve(base, out.routes)
  else if (Array.isArray(out.routes)) out.routes = out.routes.map((r) => (typeof r === 'string' ? resolve(base, r) : r))
  if (out.plugins) out.plugins = out.plugins.map((p) => (typeof p === 'string' && p.startsWith('.') ? resolve(base, p) : p))
  return out
}

/**
 * Resolves options given as an object or as the path of a config file: validates them, makes
 * paths absolute (from the config file's folder, or the working directory for options given in
 * code) and loads plugins. Problems are collected in `problems`, not thrown (only an unreadable
 * config file throws): use `loadConfig` to read the routes too and throw them all at once.
 */
export async function resolveConfig(
  input: string | MockyardOptions | undefined,
  settings?: ResolveSettings,
  overrides?: MockyardOptions,
): Promise<ResolvedConfig> {
  const extraNames = settings?.extraNames ?? []
  if (settings?.bundled && typeof input !== 'string' && !input?.routes && !input?.plugins && !input?.handlers && !overrides?.routes && !overrides?.plugins) {
    // Nothing to serve was named: serve the bundled example mocks, unless an unknown option may
    // be a misspelt one (`rotues`): then nothing is served, and the warning says why.
    const unknown = [...validateOptions(input ?? {}, 'options', extraNames).unknown, ...validateOptions(overrides ?? {}, 'options', extraNames).unknown]
    if (unknown.length === 0) return { ...(await resolveConfig(BUNDLED_CONFIG, { extraNames }, { ...input, ...overrides })), bundled: true }
    const resolved = await resolveConfig(input, { extraNames }, overrides)
    for (const warning of resolved.warnings) {
      if (warning.pointer.split('/').length === 2) warning.fix += ' The bundled example mocks are served only when the options carry no unknown name.'
    }
    return resolved
  }
  let configFile: string | undefined
  let raw: unknown = input ?? {}
  if (typeof input === 'string') {
    configFile = resolve(input)
    raw = await readConfigFile(configFile)
  }
  const fileCheck = validateOptions(raw, configFile ?? 'options', extraNames)
  const overrideCheck = overrides ? validateOptions(overrides, 'options', extraNames) : { errors: [], warnings: [] }
  const fileProblems = fileCheck.errors
  const overrideProblems = overrideCheck.errors
  const problems = [...fileProblems, ...overrideProblems]
  const warnings = [...fileCheck.warnings, ...overrideCheck.warnings]
  if (problems.some((p) => p.pointer === '')) throw new ConfigError(problems)
  const base = configFile ? dirname(configFile) : process.cwd()
  // Paths in a config file resolve from its folder; paths given in code, from the working directory.
  // Options with problems are left out, so that the plugins and routes can still be checked.
  // Unknown and ignored names are left out too (they were warned about above).
  const options = {
    ...absolutePaths(knownOptions(withoutProblems(raw as MockyardOptions, fileProblems)), base),
    ...(overrides ? absolutePaths(knownOptions(withoutProblems(overrides, overrideProblems)), process.cwd()) : {}),
  }

  // The config file's own relative `routes` and `data` that only make sense from the working
  // directory (written for @availity/mock-server): by the path they resolve to.
  const fromWorkingDirectory = new Map<string, WorkingDirectoryPath>()
  if (configFile) {
    const own = knownOptions(withoutProblems(raw as MockyardOptions, fileProblems))
    if (overrides?.routes === undefined) {
      for (const value of [own.routes ?? []].flat()) {
        const found = typeof value === 'string' ? workingDirectoryPath('routes', value, configFile, 'file') : undefined
        if (found !== undefined) fromWorkingDirectory.set(resolve(base, found.value), found)
      }
    }
    const found = overrides?.data === undefined && typeof own.data === 'string' ? workingDirectoryPath('data', own.data, configFile, 'folder') : undefined
    if (found !== undefined) fromWorkingDirectory.set(resolve(base, found.value), found)
  }
  /** The working-directory fixes of one routes spec, if any. */
  const hintsFor = (routesPath: string | undefined): Pick<RoutesSpec, 'fromWorkingDirectory'> => {
    const routesFix = routesPath === undefined ? undefined : fromWorkingDirectory.get(routesPath)
    const dataFix = options.data === undefined ? undefined : fromWorkingDirectory.get(options.data)
    return routesFix === undefined && dataFix === undefined ? {} : { fromWorkingDirectory: { ...(routesFix ? { routes: routesFix } : {}), ...(dataFix ? { data: dataFix } : {}) } }
  }

  const routes: RoutesSpec[] = []
  const handlers: Array<RequestHandler | WebSocketHandler> = [...(options.handlers ?? [])]

  for (const [index, plugin] of (options.plugins ?? []).entries()) {
    let object: MockyardPlugin
    let folder = base
    let label = `plugin #${index}`
    if (typeof plugin === 'string') {
      label = `plugin ${plugin}`
      try {
        const path = await resolvePlugin(plugin, base)
        folder = dirname(path)
        object = (await importDefault(path)) as MockyardPlugin
      } catch (cause) {
        problems.push({ file: configFile ?? 'options', pointer: `/plugins/${index}`, message: `the plugin "${plugin}" cannot be loaded: ${(cause as Error).message.split('\n')[0]}`, fix: `Install it (npm install -D ${plugin}) or fix its name; names resolve from ${base}.` })
        continue
      }
    } else object = plugin
    if (typeof object !== 'object' || object === null) {
      problems.push({ file: configFile ?? 'options', pointer: `/plugins/${index}`, message: `${label} has no default export object`, fix: 'A plugin module must export default { routes, data }.' })
      continue
    }
    const data = object.data ? resolve(folder, object.data) : defaultDataFor(folder)
    for (const value of [object.routes ?? []].flat()) {
      routes.push(typeof value === 'string' ? { routes: resolve(folder, value), label: resolve(folder, value), data: object.data ? data : defaultDataFor(dirname(resolve(folder, value))) } : { routes: value, label, data })
    }
    handlers.push(...(object.handlers ?? []))
  }

  const local = options.routes === undefined ? [] : [options.routes].flat()
  local.forEach((value, index) => {
    if (typeof value === 'string') {
      const path = value
      routes.push({ routes: path, label: path, data: options.data ?? defaultDataFor(dirname(path)), ...(options.data === undefined ? { dataBeside: dirname(path) } : {}), ...hintsFor(path) })
    } else {
      routes.push({ routes: value, label: `${configFile ?? 'options'}#/routes${Array.isArray(options.routes) ? `/${index}` : ''}`, data: options.data ?? base, ...hintsFor(undefined) })
    }
  })
  if (routes.length === 0 && handlers.length === 0) {
    // An unknown name is then likely the misspelt routes option: say what it leads to.
    for (const warning of warnings) if (warning.pointer.split('/').length === 2) warning.fix += ' No routes are served.'
  }
  return { options, configFile, routes, handlers, problems, warnings, bundled: false }
}

/** A copy of the options without the ones (or the list items) that have problems. */
function withoutProblems(options: MockyardOptions, problems: ConfigProblem[]): MockyardOptions {
  const out: Record<string, unknown> = { ...options }
  const dropped = new Map<string, Set<number>>()
  for (const problem of problems) {
    const [key, index] = problem.pointer.split('/').slice(1)
    if (!key) continue
    if (index !== undefined && /^\d+$/.test(index) && Array.isArray(out[key])) {
      if (!dropped.has(key)) dropped.set(key, new Set())
      dropped.get(key)!.add(Number(index))
    } else delete out[key]
  }
  for (const [key, indexes] of dropped) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).filter((_, i) => !indexes.has(i))
  }
  return out as MockyardOptions
}

/**
 * Reads the routes files of resolved options; throws one `ConfigError` with the problems of the
 * options, the plugins and the routes files together.
 *
 * @example
 * const config = await resolveConfig('mocks/config.js')
 * const { sources, warnings } = await readResolvedRoutes(config, (data) => folderFiles(data))
 */
export async function readResolvedRoutes(config: ResolvedConfig, filesFor: (data: string) => FolderFiles, checkFiles = true): Promise<ReadRoutesResult> {
  const problems = [...config.problems]
  let loaded: ReadRoutesResult = { sources: [], warnings: [] }
  try {
    loaded = await readRoutes(config.routes, filesFor, checkFiles)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    problems.push(...error.problems)
  }
  // The options' warnings (unknown names) travel with the errors: a config that fails lists
  // every bad option at once, not only those of the wrong type (docs/behaviour.md, "Options").
  if (problems.length > 0) throw new ConfigError(problems, { warnings: config.warnings })
  return loaded
}

export interface ReadRoutesResult {
  sources: RouteSource[]
  warnings: ConfigProblem[]
}

/**
 * Reads and validates every routes file. Errors (unreadable files, bad JSON, wrong types,
 * invalid patterns, files outside the data folder) are thrown together as one `ConfigError`;
 * unknown keys, missing data files and data `.json` files that do not parse are warnings.
 *
 * With `checkFiles` (the default) every data file the routes name is read now, which finds the
 * missing and unparseable ones and serves the first requests from memory. Without it (in
 * process, under Vitest) the files are read on first use, and loading costs a test file a few
 * milliseconds less (bench/README.md, "Per-file cost under Vitest"): only whether each exists is
 * checked at load (a missing file is still a warning; invalid JSON is not looked for).
 */
export async function readRoutes(specs: readonly RoutesSpec[], filesFor: (data: string) => FolderFiles, checkFiles = true): Promise<ReadRoutesResult> {
  const errors: ConfigProblem[] = []
  const warnings: ConfigProblem[] = []
  const sources: RouteSource[] = []
  /** Data folders that do not exist: one warning each, in place of one per file. */
  const missingFolders = new Set<string>()
  for (const spec of specs) {
    let routes: unknown = spec.routes
    if (typeof spec.routes === 'string') {
      let text: string
      try {
        text = readTextFile(spec.routes)
      } catch (error) {
        const moved = spec.fromWorkingDirectory
        // The data option of the same config usually has the same mistake: said now, not after the routes are fixed.
        const fix = moved?.routes
          ? `${moved.routes.fix}${moved.data ? ` The data option "${moved.data.value}" has the same problem: write "${moved.data.suggested}".` : ''}`
          : `${didYouMean(spec.routes, 'file')}Check the path in the routes option.`
        errors.push({ file: spec.routes, pointer: '', message: `the routes file cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, fix })
        continue
      }
      const parsed = parseJsonFile(text, spec.routes)
      if (parsed.problem) {
        errors.push(parsed.problem)
        continue
      }
      routes = parsed.value
    }
    const result = validateRoutes(routes, spec.label)
    errors.push(...result.errors)
    warnings.push(...result.warnings)
    if (result.errors.length > 0) continue
    const files = filesFor(spec.data)
    const named = listFiles(routes)
    if (named.length > 0 && !isFolder(spec.data)) {
      if (!missingFolders.has(spec.data)) {
        missingFolders.add(spec.data)
        warnings.push({ file: spec.label, pointer: '', message: `the data folder ${spec.data} does not exist, so none of the data files these routes name can be served`, fix: spec.fromWorkingDirectory?.data?.fix ?? `${didYouMean(spec.data, 'folder')}Create the folder, or point the data option at the folder that holds the files (requests for them answer 404 until then).` })
      }
      sources.push({ file: spec.label, routes: routes as RoutesConfig, files })
      continue
    }
    // Every named file: missing ones and unparseable JSON are warnings. The reads fill the
    // cache, so the first requests are served from memory. Each file is read and parsed once.
    const states = new Map<string, 'ok' | 'missing' | 'invalid' | 'outside'>()
    const listings = new Map<string, Set<string> | undefined>()
    for (const { name, path } of named) {
      let state = states.get(name)
      if (state === undefined && !checkFiles) {
        // Read on first use: only whether it exists now (a stat, not a read), so that a missing
        // file is still a warning at load.
        state = fileExists(files.pathOf(name), listings) ? 'ok' : files.leadsOutside(name) ? 'outside' : 'missing'
        states.set(name, state)
      }
      if (state === undefined) {
        const bytes = files.load(name)
        state = bytes === undefined ? (files.leadsOutside(name) ? 'outside' : 'missing') : name.endsWith('.json') && !isJson(bytes) ? 'invalid' : 'ok'
        states.set(name, state)
      }
      if (state === 'missing') {
        const close = files.closestName(name)
        const fix = close ? `Did you mean "${close}"? Fix the name, or add the file (requests for it answer 404 until then).` : 'Add the file (requests for it answer 404 until then), or fix the name.'
        warnings.push({ file: spec.label, pointer: toPointer(path), message: `the data file "${name}" does not exist in ${spec.data}`, fix })
      } else if (state === 'outside') {
        warnings.push({ file: spec.label, pointer: toPointer(path), message: `the data file "${name}" is a symlink leading outside ${spec.data}; it answers 404`, fix: 'Copy the file into the data folder, or point the symlink at a file inside it.' })
      } else if (state === 'invalid') {
        warnings.push({ file: spec.label, pointer: toPointer(path), message: `the data file "${name}" is not valid JSON; it is served as written`, fix: 'Fix the JSON in the file if clients should parse it.' })
      }
    }
    sources.push({ file: spec.label, routes: routes as RoutesConfig, files })
  }
  if (errors.length > 0) throw new ConfigError(errors)
  return { sources, warnings }
}
