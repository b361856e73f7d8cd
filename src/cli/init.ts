/**
 * `mockyard init --openapi <doc>`: writes the mocks an OpenAPI document describes
 * (docs/behaviour.md, "OpenAPI: mocks from a contract"). Loaded only when the subcommand runs.
 */
import { isAbsolute, relative } from 'node:path'
import { parseArgs, styleText } from 'node:util'
import { countOf } from '../core/count.js'
import { formatMessage } from '../core/errors.js'
import { usageMessage } from './usage.js'
import { findLocalMocks } from '../config/load-config.js'
import { initFromOpenApi, InitError } from '../init/init-openapi.js'

const HELP = `Usage: mockyard init --openapi <file> [--out <folder>] [--force]

Writes mocks from an OpenAPI 3.0 or 3.1 document (JSON or YAML): <out>/routes.json and data
files in <out>/data, one route per path under the servers' base path. Each operation answers its
lowest 2xx response by default; the request header Prefer picks another documented response
(Prefer: code=404) or a named example (Prefer: example=<name>), or both (Prefer: code=404,
example=gone). Bodies come from the document's examples, else are made from the schemas, the
same bytes on every run.

Options:
      --openapi <file>    the OpenAPI document (required)
  -o, --out <folder>      where routes.json and data/ go (default mocks, where mockyard finds them)
      --force             overwrite an existing routes.json (and data files of the same names)
  -h, --help              show this help

Then:
  mockyard                               serves them (mocks/routes.json is found by default)
  mockyard check --openapi <file>        checks them against the document

Exit status: 0 written, 1 nothing written (the document, or files that exist), 2 bad usage.
`

const FLAGS = {
  openapi: { type: 'string' },
  out: { type: 'string', short: 'o' },
  force: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

function fail(message: string): void {
  process.stderr.write(styleText('red', message, { stream: process.stderr }) + '\n')
}

/** A path as the user would type it: relative to the working folder when inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path)
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : rel
}

/** Runs `mockyard init` with the arguments after `init`; resolves to the exit status. */
export async function initCommand(argv: string[]): Promise<number> {
  let values
  let positionals: string[]
  try {
    ;({ values, positionals } = parseArgs({ args: argv, options: FLAGS, allowPositionals: true }))
  } catch (error) {
    fail(usageMessage(error as Error, Object.keys(FLAGS), 'init'))
    return 2
  }
  if (values.help) {
    process.stdout.write(HELP)
    return 0
  }
  if (positionals.length > 0) {
    fail(formatMessage(`mockyard init takes the document with --openapi, not "${positionals[0]}" alone. For example mockyard init --openapi ${values.openapi ? 'openapi.yaml' : positionals[0]}.`))
    return 2
  }
  if (!values.openapi) {
    fail(formatMessage('mockyard init needs --openapi: the OpenAPI document to write mocks from. For example mockyard init --openapi openapi.yaml.'))
    return 2
  }
  try {
    const result = await initFromOpenApi({ openapi: values.openapi, out: values.out, force: values.force })
    for (const line of result.skipped) process.stderr.write(formatMessage(`not written: ${line}.`) + '\n')
    // `mockyard` alone serves them only where it finds them first (docs/behaviour.md, "Options").
    const local = findLocalMocks()
    const found = local !== undefined && 'routes' in local && local.routes === result.routesFile
    const serve = found ? 'mockyard' : `mockyard --routes ${shown(result.routesFile)} --data ${shown(result.dataFolder)}${local && 'configFile' in local ? ` (mockyard alone loads ${shown(local.configFile)})` : ''}`
    process.stderr.write(
      formatMessage(
        `init: ${countOf(result.operations, 'operation')} of ${values.openapi} written as ${countOf(result.routes, 'route')}, ${countOf(result.entries, 'entry')} and ${countOf(result.files, 'data file')} in ${shown(result.routesFile)} and ${shown(result.dataFolder)}. Serve them with ${serve}; pick another answer with the header Prefer: code=<status> or Prefer: example=<name>.`,
      ) + '\n',
    )
    return 0
  } catch (error) {
    if (error instanceof InitError) {
      // In the form of the command's other lines (`[mockyard] init: ...`), prefixed once.
      fail(formatMessage(`init: ${error.message}. ${error.fix}`))
      return 1
    }
    throw error
  }
}
