import { existsSync, statSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { ConfigError, type ConfigProblem } from '../core/errors.js'
import { folderFiles } from '../node/folder-files.js'
import { BUNDLED_CONFIG, findConfigFile, readRoutes, resolveConfig, type ResolvedConfig } from '../node/load-config.js'
import type { MockyardOptions } from '../node/options.js'
import { findDeadConfig } from './find-dead-config.js'
import { findLine } from './find-line.js'
import type { CheckEntry, CheckKind, CheckReport } from './problem.js'

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
  const configFile = options.config ? resolve(cwd, options.config) : options.routes ? undefined : (findConfigFile(cwd) ?? BUNDLED_CONFIG)

  let config: ResolvedConfig | undefined
  try {
    config = await resolveConfig(configFile, undefined, Object.keys(flags).length > 0 ? flags : undefined)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    entries.push(...error.problems.map((p) => toEntry(p)))
  }
  const checked: Array<{ file: string; routes: Record<string, unknown>; data: string }> = []
  if (config) {
    entries.push(...config.problems.map((p) => toEntry(p)))
    const earlierKeys: Array<{ key: string; file: string }> = []
    for (const spec of config.routes) {
      try {
        const { sources, warnings } = await readRoutes([spec], (data) => folderFiles(data))
        entries.push(...warnings.map((p) => toEntry(p)))
        const routes = sources[0]!.routes as Record<string, unknown>
        entries.push(...findDeadConfig(routes, spec.label, earlierKeys).map((p) => toEntry(p, p.kind)))
        earlierKeys.push(...Object.keys(routes).map((key) => ({ key, file: spec.label })))
        checked.push({ file: spec.label, routes, data: spec.data })
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        entries.push(...error.problems.map((p) => toEntry(p)))
      }
    }
  }

  let coverage: CheckReport['coverage']
  if (options.openapi) {
    const path = resolve(cwd, options.openapi)
    const label = display(path, cwd)
    try {
      const { checkOpenApi, loadOpenApi } = await import('./check-openapi.js')
      const api = await loadOpenApi(path, label)
      const result = checkOpenApi(api, checked)
      entries.push(...result.entries)
      coverage = result.coverage
      entries.push({
        severity: 'info',
        kind: 'coverage',
        file: path,
        pointer: '/paths',
        message: `${coverage.mocked} of ${coverage.operations} operations of ${label} are mocked by routes`,
        fix: coverage.mocked < coverage.operations ? 'The operations not mocked are listed above.' : 'Every operation is mocked.',
        coverage,
      })
    } catch (error) {
      const message = ((error as Error).message ?? String(error)).split('\n')[0]!.replace(/\.$/, '')
      entries.push({ severity: 'error', kind: 'openapi', file: path, pointer: '', message: `the OpenAPI document cannot be used: ${message}`, fix: 'Give an OpenAPI 3.0 or 3.1 document (JSON or YAML) whose $refs resolve.' })
    }
  }

  for (const entry of entries) {
    if (isAbsolute(entry.file) && existsSync(entry.file) && statSync(entry.file).isFile()) {
      const line = findLine(entry.file, entry.pointer)
      if (line !== undefined) entry.line = line
    }
    entry.file = display(entry.file, cwd)
    // The loader names folders by absolute path: shown from the working directory, as files are.
    entry.message = entry.message.split(cwd + sep).join('')
    if (entry.source) entry.source = entry.source.replace(/^[^#]*/, (file) => display(file, cwd))
  }
  const order = (e: CheckEntry) => (e.severity === 'error' ? 0 : 1)
  entries.sort((a, b) => order(a) - order(b))
  return coverage ? { entries, coverage } : { entries }
}

/** A path as reports show it: relative to the working directory when inside it. */
function display(file: string, cwd: string): string {
  if (!isAbsolute(file)) return file
  const rel = relative(cwd, file)
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file
}
