import { existsSync, statSync } from 'node:fs'
import { isAbsolute, join, resolve, sep } from 'node:path'
import { ConfigError, type ConfigProblem } from '../core/errors.js'
import type { RoutesConfig } from '../core/types.js'
import { folderFiles } from '../config/folder-files.js'
import { BUNDLED_CONFIG, findLocalMocks, parseJsonFile, readRoutes, resolveConfig, type ResolvedConfig } from '../config/load-config.js'
import type { RequestHandler } from 'msw'
import { isSocketHandler } from '../harness/handler-kinds.js'
import type { MockyardOptions } from '../config/options.js'
import { readTextFile } from '../config/read-text.js'
import { takesBodyParams } from '../core/routes-model.js'
import { findDeadConfig } from './find-dead-config.js'
import { createLineFinder } from './find-line.js'
import { displayPath, type CheckEntry, type CheckKind, type CheckReport } from './problem.js'

/** What to check: a config file, or routes files and a data folder; and an OpenAPI document. */
export interface CheckOptions {
  config?: string
  routes?: string[]
  data?: string
  openapi?: string
  /** Paths in the report are relative to this folder (default: the working directory). */
  cwd?: string
}

/** The kind of a loader warning, from its message (the loader's own wording). */
function kindOf(problem: ConfigProblem): CheckKind {
  if (/^unknown (key|option)/.test(problem.message)) return 'unknown-key'
  if (/^the data file .* does not exist/.test(problem.message)) return 'missing-file'
  if (/^the data file .* is not valid JSON/.test(problem.message)) return 'invalid-json'
  if (/ is the same path as /.test(problem.message)) return 'unreachable'
  return 'config'
}

const toEntry = (problem: ConfigProblem, kind: CheckKind = kindOf(problem)): CheckEntry => ({
  severity: 'error',
  kind,
  file: problem.file,
  pointer: problem.pointer,
  message: problem.message,
  fix: problem.fix,
})

/**
 * A data file that does not parse, reported at the line where the parser stopped (with the
 * place in the routes file that names it as `source`), so an annotation lands on the data file.
 */
function invalidJsonEntry(problem: ConfigProblem, data: string): CheckEntry {
  const name = /^the data file "(.*)" is not valid JSON/.exec(problem.message)![1]!
  const path = join(data, name)
  const entry: CheckEntry = { ...toEntry(problem, 'invalid-json'), file: path, pointer: '', source: `${problem.file}#${problem.pointer}` }
  try {
    const parsed = parseJsonFile(readTextFile(path), path).problem
    const at = parsed && /^invalid JSON at line (\d+), column (\d+): (.*)$/.exec(parsed.message)
    if (at) {
      entry.line = Number(at[1])
      entry.message = `the data file "${name}" is not valid JSON (line ${at[1]}, column ${at[2]}: ${at[3]}); it is served as written`
    }
  } catch {
    // Unreadable now: the loader's words stand.
  }
  return entry
}

/**
 * Checks a mockyard configuration (docs/behaviour.md, "Checking mocks: `mockyard check`"): loads
 * it with the loader every surface uses and reports every problem at once (config errors, unknown
 * keys, missing data files, data files that do not parse, configuration that never takes effect),
 * then, given an OpenAPI document, checks the routes and data against it. Never throws for a
 * broken configuration: problems are the result.
 *
 * @example
 * const report = await runCheck({ config: 'mocks/config.js', openapi: 'mocks/openapi.yaml' })
 * if (report.entries.some((e) => e.severity === 'error')) process.exitCode = 1
 */
export async function runCheck(options: CheckOptions): Promise<CheckReport> {
  const cwd = options.cwd ?? process.cwd()
  const entries: CheckEntry[] = []
  const flags: MockyardOptions = {}
  if (options.routes) flags.routes = options.routes.map((r) => resolve(cwd, r))
  if (options.data) flags.data = resolve(cwd, options.data)
  // Neither --config nor --routes: what the CLI would serve (docs/behaviour.md, "Options").
  const local = options.config || options.routes ? undefined : findLocalMocks(cwd)
  if (local && 'routes' in local) {
    flags.routes = [local.routes]
    flags.data ??= local.data
  }
  const configFile = options.config ? resolve(cwd, options.config) : options.routes || flags.routes ? undefined : ((local && 'configFile' in local ? local.configFile : undefined) ?? BUNDLED_CONFIG)

  let config: ResolvedConfig | undefined
  try {
    config = await resolveConfig(configFile, undefined, Object.keys(flags).length > 0 ? flags : undefined)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    entries.push(...error.problems.map((p) => toEntry(p)))
  }
  const checked: Array<{ file: string; routes: Record<string, unknown>; data: string }> = []
  if (config) {
    // Unknown option names too: each bad option is a problem of its own.
    entries.push(...config.problems.map((p) => toEntry(p)), ...config.warnings.map((p) => toEntry(p)))
    const earlierKeys: Array<{ key: string; file: string }> = []
    for (const spec of config.routes) {
      let loaded: Awaited<ReturnType<typeof readRoutes>> | undefined
      try {
        loaded = await readRoutes([spec], (data) => folderFiles(data))
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        entries.push(...error.problems.map((p) => toEntry(p)))
        // The rest of the file is still checked: the same loader, on a copy without the values
        // that have errors (so that every problem is reported in one run).
        const routes = typeof spec.routes === 'string' ? readJson(spec.routes) : spec.routes
        if (routes !== undefined && error.problems.every((p) => p.file === spec.label && p.pointer !== '')) {
          try {
            loaded = await readRoutes([{ ...spec, routes: withoutValuesAt(routes, error.problems.map((p) => p.pointer)) as RoutesConfig }], (data) => folderFiles(data))
          } catch {
            loaded = undefined
          }
        }
      }
      if (!loaded) continue
      entries.push(...loaded.warnings.map((p) => (kindOf(p) === 'invalid-json' ? invalidJsonEntry(p, spec.data) : toEntry(p))))
      const routes = loaded.sources[0]!.routes as Record<string, unknown>
      entries.push(...findDeadConfig(routes, spec.label, earlierKeys).map((p) => toEntry(p, p.kind)))
      earlierKeys.push(...Object.keys(routes).map((key) => ({ key, file: spec.label })))
      checked.push({ file: spec.label, routes, data: spec.data })
    }
  }

  let coverage: CheckReport['coverage']
  if (options.openapi) {
    const path = resolve(cwd, options.openapi)
    const label = displayPath(path, cwd)
    const { checkInWorker } = await import('./check-in-worker.js')
    const outcome = await checkInWorker(path, cwd, checked)
    if ('failures' in outcome) {
      const [failure] = outcome.failures
      if (failure?.kind === 'openapi' && failure.file === path && !existsSync(path)) {
        entries.push({ severity: 'error', kind: 'openapi', file: path, pointer: '', message: 'the OpenAPI document cannot be read (ENOENT)', fix: 'Check the path given to --openapi.' })
      } else entries.push(...outcome.failures)
    } else {
      entries.push(...outcome.entries)
      // An operation no route mocks is mocked when the config's msw handlers answer it.
      // WebSocket handlers answer no request: only request handlers can mock an operation.
      const handlers = (config?.handlers ?? []).filter((handler): handler is RequestHandler => !isSocketHandler(handler))
      let byHandlers = 0
      for (const { method, sample, entry } of outcome.unmocked) {
        if (handlers.length > 0 && (await answeredByHandlers(handlers, method, sample))) byHandlers++
        else entries.push(entry)
      }
      coverage = { operations: outcome.operations, mocked: outcome.mocked + byHandlers, handlers: byHandlers }
      entries.push({
        severity: 'info',
        kind: 'coverage',
        file: path,
        pointer: '/paths',
        message: `${coverage.mocked} of ${coverage.operations} operations of ${label} are mocked${coverage.handlers > 0 ? ` (${coverage.handlers} by msw handlers)` : ''}`,
        fix: coverage.mocked < coverage.operations ? 'The operations not mocked are listed above.' : 'Every operation is mocked.',
        coverage,
      })
    }
  }

  const findLine = createLineFinder()
  for (const entry of entries) {
    if (entry.line === undefined && isAbsolute(entry.file) && existsSync(entry.file) && statSync(entry.file).isFile()) {
      const line = findLine(entry.file, entry.pointer)
      if (line !== undefined) entry.line = line
    }
    entry.file = displayPath(entry.file, cwd)
    // The loader names folders by absolute path: shown from the working directory, as files are.
    entry.message = entry.message.split(cwd + sep).join('')
    if (entry.source) entry.source = entry.source.replace(/^[^#]*/, (file) => displayPath(file, cwd))
  }
  const order = (e: CheckEntry) => (e.severity === 'error' ? 0 : 1)
  entries.sort((a, b) => order(a) - order(b))
  // The same field order in every entry, for people reading the JSON.
  const tidy = entries.map(({ severity, kind, file, line, pointer, message, fix, ...rest }) => ({ severity, kind, file, ...(line === undefined ? {} : { line }), pointer, message, fix, ...rest }))
  return coverage ? { entries: tidy, coverage } : { entries: tidy }
}

/**
 * Whether the config's msw handlers answer a request to an operation (a probe with the path's
 * templates filled and, for methods with a body, `{}`): then the operation is mocked.
 */
async function answeredByHandlers(handlers: RequestHandler[], method: string, path: string): Promise<boolean> {
  const { getResponse } = await import('msw')
  const body = takesBodyParams(method) ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}
  try {
    return (await getResponse(handlers, new Request(new URL(path, 'http://localhost'), { method, ...body }))) !== undefined
  } catch {
    return false
  }
}

function readJson(path: string): unknown {
  try {
    return parseJsonFile(readTextFile(path), path).value
  } catch {
    return undefined
  }
}

/**
 * A deep copy of a routes object without the values at some JSON pointers: object keys are
 * removed, array items become `{}` (an entry with no fields), so later pointers stay right.
 */
function withoutValuesAt(routes: unknown, pointers: string[]): unknown {
  const copy = structuredClone(routes) as Record<string, unknown>
  for (const pointer of pointers) {
    const tokens = pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    let parent: unknown = copy
    for (const token of tokens.slice(0, -1)) parent = (parent as Record<string, unknown> | undefined)?.[token]
    const last = tokens[tokens.length - 1]!
    if (Array.isArray(parent)) parent[Number(last)] = {}
    else if (parent && typeof parent === 'object') delete (parent as Record<string, unknown>)[last]
  }
  return copy
}

