/**
 * `mockyard check`: reports what is wrong with a configuration, and where the mocks disagree
 * with an OpenAPI document (docs/behaviour.md, "Checking mocks: `mockyard check`"). Loaded only
 * when the subcommand runs, so serving never pays for the validator and parsers it uses.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { parseArgs } from 'node:util'
import { formatMessage, formatProblem } from '../core/errors.js'
import type { CheckEntry } from '../check/problem.js'
import { countOf } from '../core/count.js'
import { runCheck } from '../check/run-check.js'
import { findLocalMocks } from '../config/load-config.js'
import { usageMessage } from './usage.js'

const HELP = `Usage: mockyard check [--config <file> | --routes <file>... --data <folder>] [--openapi <file>] [--format text|json]

Loads the mocks as every mockyard surface does and reports every problem at once: config errors,
unknown keys, missing data files, data files that do not parse, configuration that never takes
effect. With --openapi, also checks the routes, the data files and the params conditions against
an OpenAPI 3.0 or 3.1 document, and lists the operations no route mocks.

Options:
  -c, --config <file>     config file (default: mocks/config.js here, else mocks/routes.json
                          with mocks/data; with neither, name the mocks)
  -r, --routes <file>     routes file; repeatable
  -d, --data <folder>     data folder of the routes files
      --openapi <file>    OpenAPI document (JSON or YAML)
      --format <format>   text (default) or json
  -h, --help              show this help

Exit status: 0 no problems, 1 problems found, 2 bad usage.
`

/** `%`, CR and LF, and in properties also `:` and `,`, escaped as GitHub workflow commands want. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

/**
 * The `::error` workflow command of a problem, for GitHub Actions' annotations. GitHub wants the
 * file relative to the repository (`GITHUB_WORKSPACE`); reports are relative to the working folder.
 */
export function annotationOf(entry: CheckEntry): string {
  const workspace = process.env.GITHUB_WORKSPACE
  const absolute = resolve(entry.file)
  const inWorkspace = workspace ? relative(workspace, absolute) : ''
  const file = inWorkspace && !inWorkspace.startsWith('..') && !isAbsolute(inWorkspace) ? inWorkspace.split(sep).join('/') : entry.file
  const where = [`file=${escapeProperty(file)}`]
  if (entry.line !== undefined) where.push(`line=${entry.line}`)
  where.push(`title=${escapeProperty(`mockyard check: ${entry.kind}`)}`)
  return `::error ${where.join(',')}::${escapeData(`${entry.pointer ? `#${entry.pointer} ` : ''}${entry.message}. ${entry.fix}`)}`
}

/**
 * Text as one line of output: line breaks and other control characters (terminal escapes
 * included) written as JSON writes them, so that user text (a route key holding
 * `\n::stop-commands::`) never starts a line, where GitHub Actions would read a workflow command.
 */
export function oneLine(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g, (c) =>
    c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/**
 * The text line of a problem: `file#pointer: what. What to do.` on one line. A file whose name
 * starts with anything but a letter, a digit, `.`, `/`, `\` or `_` (`::x`, `##[x]`, a space) is
 * shown as `./name`, so no line starts with a name that could read as a workflow command.
 */
export function problemLine(entry: CheckEntry): string {
  const line = oneLine(formatProblem(entry))
  return /^[\p{L}\p{N}._/\\]/u.test(line) ? line : `./${line}`
}

const FLAGS = {
  config: { type: 'string', short: 'c' },
  routes: { type: 'string', short: 'r', multiple: true },
  data: { type: 'string', short: 'd' },
  openapi: { type: 'string' },
  format: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

/** Which local mocks `check` reads without --config and --routes, in the words of the CLI's own line. */
function whatIsChecked(local: NonNullable<ReturnType<typeof findLocalMocks>>): string {
  const shown = (path: string) => relative(process.cwd(), path).split(sep).join('/')
  if ('configFile' in local) return `no --config and no --routes: checking ${shown(local.configFile)}.`
  return `no --config, no --routes and no mocks/config.js here: checking ${shown(local.routes)} with the data folder ${shown(local.data)}.`
}

/** Runs `mockyard check` with the arguments after `check`; resolves to the exit status. */
export async function checkCommand(argv: string[]): Promise<number> {
  let values
  try {
    ;({ values } = parseArgs({ args: argv, options: FLAGS }))
  } catch (error) {
    process.stderr.write(usageMessage(error as Error, Object.keys(FLAGS), 'check') + '\n')
    return 2
  }
  if (values.help) {
    process.stdout.write(HELP)
    return 0
  }
  const format = values.format ?? 'text'
  if (format !== 'text' && format !== 'json') {
    process.stderr.write(formatMessage(`check: --format takes text or json, got "${format}". For example --format json.`) + '\n')
    return 2
  }
  if (values.data && !values.routes && !values.config) {
    process.stderr.write(formatMessage('check: --data needs --routes or --config. Name the routes file with --routes.') + '\n')
    return 2
  }

  if (!values.config && !values.routes) {
    // Only the server falls back to the bundled example mocks: a check of them would pass a CI job run from the wrong folder.
    const local = findLocalMocks()
    if (!local) {
      process.stderr.write(formatMessage(`check: no mocks/config.js (.mjs, .json) or mocks/routes.json in ${process.cwd()}, and no --config or --routes. Run it from your project's folder, or name the mocks with --config <file> or --routes <file>.`) + '\n')
      return 2
    }
    process.stderr.write(formatMessage(whatIsChecked(local)) + '\n')
  }
  const report = await runCheck({ config: values.config, routes: values.routes, data: values.data, openapi: values.openapi })
  const errors = report.entries.filter((e) => e.severity === 'error')
  if (format === 'json') {
    process.stdout.write(JSON.stringify(report.entries, null, 2) + '\n')
    return errors.length > 0 ? 1 : 0
  }
  const annotate = process.env.GITHUB_ACTIONS === 'true'
  const lines: string[] = []
  for (const entry of errors) {
    lines.push(problemLine(entry))
    if (annotate) lines.push(annotationOf(entry))
  }
  const notMocked = report.entries.filter((e) => e.kind === 'not-mocked')
  if (report.coverage) {
    const { operations, mocked, handlers } = report.coverage
    lines.push(`OpenAPI coverage: ${mocked} of ${operations} operations are mocked${handlers > 0 ? ` (${handlers} by msw handlers of the config)` : ''}.`)
    for (const entry of notMocked) lines.push(`  not mocked: ${oneLine(entry.operation ?? '')}`)
  }
  lines.push(formatMessage(`check: ${errors.length === 0 ? 'no problems' : countOf(errors.length, 'problem')}.`))
  process.stdout.write(lines.join('\n') + '\n')
  return errors.length > 0 ? 1 : 0
}
