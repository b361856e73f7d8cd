#!/usr/bin/env node
/**
 * The `mockyard` command: a thin layer over `mockyard/node`. Flags override the config file.
 */
import { isAbsolute, relative } from 'node:path'
import { parseArgs, styleText } from 'node:util'
import { DEFAULT_BODY_LIMIT, DEFAULT_LATENCY_MS } from '../core/defaults.js'
import { ConfigError, formatMessage } from '../core/errors.js'
import { createInstance, LISTENER_DEFAULTS } from '../config/instance.js'
import { BUNDLED_CONFIG, findLocalMocks } from '../config/load-config.js'
import { createLogger, LOG_LEVELS, type LogLevel } from '../config/logger.js'
import { validateOptions, type MockyardOptions } from '../config/options.js'
import { listeningLine } from '../listener/address.js'
import { listen, packageInfo, STOP_GRACE_MS } from '../listener/server.js'
import { attachContract } from '../check/contract.js'
import { shownTarget, targetIsListener } from '../forward/forward.js'
import { listenProblem } from './listen-problem.js'
import { onStop } from './signals.js'
import { usageMessage } from './usage.js'
import type { AddressInfo } from 'node:net'

const HELP = `Usage: mockyard [options]

Serves routes.json mocks over HTTP. Without --config and --routes it loads mocks/config.js (or
.mjs/.json) from the working directory, else mocks/routes.json with mocks/data (what record and
import write), else the bundled example mocks.

Options:
  -c, --config <file>     config file (.js, .mjs or .json) whose default export is the options
  -r, --routes <file>     routes file; repeat for several (later ones override earlier ones)
  -d, --data <folder>     data folder of the routes files
      --plugin <module>   plugin module; repeatable
  -p, --port <number>     port (default 9999; 0 picks a free one)
      --host <host>       host to bind (default 0.0.0.0)
  -l, --latency <ms>      global delay (default ${DEFAULT_LATENCY_MS})
      --context <url>     value of \${context} in data files
      --limit <size>      maximum request body (default ${DEFAULT_BODY_LIMIT})
      --proxy <url>       forward requests no route answers to this back end
      --validate <doc>    check each answered request and answer against an OpenAPI document
      --no-watch          do not reload edited routes and data files
      --log <level>       silent, error, warn, info (default) or debug
  -h, --help              show this help
  -v, --version           show the version

Commands:
  mockyard check [--openapi <file>]  check the mocks (and against an OpenAPI document) (check --help)
  mockyard record --target <url>     record a back end's answers as mocks (record --help)
  mockyard import <file.har>         write the requests of a HAR file as mocks (import --help)
  mockyard init --openapi <file>     write mocks from an OpenAPI document (init --help)

While it runs, the dashboard is at http://HOST:PORT/__mockyard/ (from this machine).

Examples:
  mockyard
  mockyard --routes mocks/routes.json --data mocks/data --port 3001 --latency 0
`

function fail(message: string, code = 2): never {
  process.stderr.write(styleText('red', message, { stream: process.stderr }) + '\n')
  process.exit(code)
}

/** A path as the user would type it: relative to the working folder when inside it. */
function shownPath(path: string): string {
  const shown = relative(process.cwd(), path)
  return shown === '' ? '.' : shown.startsWith('..') || isAbsolute(shown) ? path : shown
}

/** A whole-number flag; a bad value is added to `problems` (every bad flag is listed at once). */
function integer(name: string, value: string | undefined, problems: string[]): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) {
    problems.push(formatMessage(`--${name} takes a whole number, got "${value}". For example --${name} ${name === 'port' ? 3001 : 0}.`))
    return undefined
  }
  return Number(value)
}

const FLAGS = {
  config: { type: 'string', short: 'c' },
  routes: { type: 'string', short: 'r', multiple: true },
  data: { type: 'string', short: 'd' },
  plugin: { type: 'string', multiple: true },
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  latency: { type: 'string', short: 'l' },
  context: { type: 'string' },
  limit: { type: 'string' },
  proxy: { type: 'string' },
  validate: { type: 'string' },
  watch: { type: 'boolean' },
  log: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const

async function main(argv: string[]): Promise<void> {
  // `mockyard help` is what `mockyard --help` is.
  if (argv[0] === 'help' && argv.length === 1) argv = ['--help']
  if (argv[0] === 'check') {
    process.exitCode = await (await import('./check.js')).checkCommand(argv.slice(1))
    return
  }
  if (argv[0] === 'init') {
    process.exitCode = await (await import('./init.js')).initCommand(argv.slice(1))
    return
  }
  if (argv[0] === 'record' || argv[0] === 'import') return (await import('./record.js')).runRecordCommand(argv)
  let parsed
  try {
    parsed = parseArgs({ args: argv, allowNegative: true, options: FLAGS })
  } catch (error) {
    fail(usageMessage(error as Error, [...Object.keys(FLAGS), 'no-watch']))
  }
  const { values } = parsed
  if (values.help) {
    process.stdout.write(HELP)
    return
  }
  if (values.version) {
    process.stdout.write(packageInfo().version + '\n')
    return
  }
  const problems: string[] = []
  const level = (values.log ?? 'info') as LogLevel
  if (!LOG_LEVELS.includes(level)) problems.push(formatMessage(`--log takes one of ${LOG_LEVELS.join(', ')}, got "${values.log}". For example --log warn.`))

  const flags: MockyardOptions = {}
  if (values.routes) flags.routes = values.routes
  if (values.data) flags.data = values.data
  if (values.plugin) flags.plugins = values.plugin
  if (values.port !== undefined) flags.port = integer('port', values.port, problems)
  if (values.host) flags.host = values.host
  if (values.latency !== undefined) flags.latency = integer('latency', values.latency, problems)
  if (values.context) flags.pluginContext = values.context
  if (values.limit) flags.limit = values.limit
  if (values.proxy) flags.proxy = values.proxy
  if (values.validate !== undefined) flags.validate = values.validate
  if (values.watch !== undefined) flags.watch = values.watch
  // Values the option rules refuse (--port 99999, --limit abc, --proxy notaurl) are bad flags too,
  // named as flags: exit 2 before anything loads.
  for (const problem of validateOptions(flags, 'flags').errors) {
    const key = problem.pointer.split('/')[1] ?? ''
    const example = FLAG_EXAMPLES[key]
    problems.push(formatMessage(`--${FLAG_NAMES[key] ?? key}: ${problem.message}. ${example ? `For example ${example}.` : problem.fix}`))
  }
  if (problems.length > 0) fail(problems.join('\n'))

  const logger = createLogger(level)
  let configFile = values.config
  // --plugin adds to the local mocks (docs/behaviour.md, "Where the CLI finds the mocks"); only
  // without any does it stand alone, in place of the bundled example mocks.
  if (!configFile && !flags.routes) {
    // docs/behaviour.md, "Options": mocks/config.*, else mocks/routes.json, else the bundled mocks; said on stderr.
    const local = findLocalMocks()
    if (local && 'configFile' in local) {
      configFile = local.configFile
      logger.info(formatMessage(`no --config and no --routes: loading ${shownPath(configFile)}.`))
    } else if (local) {
      // The data folder is left to the loader, which looks again on every reload: a mocks/data
      // made later (by `mockyard record` or `init` beside a running listener) is used at once.
      flags.routes = [local.routes]
      logger.info(formatMessage(`no --config, no --routes and no mocks/config.js here: serving ${shownPath(local.routes)} with the data folder ${shownPath(flags.data ?? local.data)}.`))
    } else if (!flags.plugins) {
      configFile = BUNDLED_CONFIG
      logger.info(formatMessage('no mocks/config.js or mocks/routes.json here and no --routes: serving the bundled example mocks.'))
    }
  }

  let instance
  try {
    instance = await createInstance(configFile, { ...LISTENER_DEFAULTS, logLevel: level }, flags)
    await attachContract(instance)
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, 1)
    throw error
  }
  const running = await listen(instance, instance.options.host ?? '0.0.0.0', instance.options.port ?? 9999).catch((error: NodeJS.ErrnoException) => {
    // The fix depends on what failed: the host (unknown name, not an address of this machine) or the port.
    fail(listenProblem(instance.options.host ?? '0.0.0.0', instance.options.port ?? 9999, error), 1)
  })
  // docs/behaviour.md, "The proxy option": a proxy target that is this very listener would send
  // every unmatched request back to itself; refused before any request.
  const proxy = instance.options.proxy
  if (proxy && (await targetIsListener(new URL(proxy), running.server.address() as AddressInfo))) {
    await running.stop()
    fail(formatMessage(`--proxy ${shownTarget(proxy)} is this server's own address (port ${running.port}), so every request no route answers would come back to it. Point the proxy option at the real back end, or listen on another --port.`), 2)
  }
  process.stdout.write(listeningLine(running.host, running.port) + '\n')
  // docs/behaviour.md, "The dashboard": on a loopback URL, since it answers loopback clients.
  logger.info(`mockyard dashboard on ${running.url}/__mockyard/`)
  // docs/behaviour.md, "Signals and shutdown": stop accepting, let requests in flight finish (up
  // to 10 s), close idle keep-alive connections, exit 0; a second signal exits at once.
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(formatMessage(`${signal} again: exiting now.`))
      process.exit(signal === 'SIGINT' ? 130 : 143)
    }
    stopping = true
    logger.info(formatMessage(`${signal}: stopping (requests in flight finish first; ${signal} again exits at once).`))
    running.stop({ graceMs: STOP_GRACE_MS }).then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  onStop(stop)
}

/** The flag of an option, where their names differ. */
const FLAG_NAMES: Record<string, string> = { pluginContext: 'context', plugins: 'plugin' }
/** A good value of each flag whose value the option rules check. */
const FLAG_EXAMPLES: Record<string, string> = {
  port: '--port 3001',
  host: '--host 127.0.0.1',
  latency: '--latency 0',
  limit: '--limit 10mb',
  proxy: '--proxy http://localhost:8080',
  pluginContext: '--context http://localhost:3000',
}

main(process.argv.slice(2)).catch((error: unknown) => {
  fail(formatMessage(`the command failed: ${(error as Error)?.stack ?? String(error)}`), 1)
})
