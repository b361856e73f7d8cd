/**
 * `mockyard record` and `mockyard import`: make mocks from traffic (docs/behaviour.md,
 * "Record, import and proxy").
 */
import { parseArgs, styleText, type ParseArgsOptionsConfig } from 'node:util'
import { isAbsolute, relative, resolve } from 'node:path'
import { countOf } from '../core/count.js'
import { ConfigError, formatMessage, formatProblem } from '../core/errors.js'
import { importHar } from '../record/har.js'
import { isListenError, listenProblem } from './listen-problem.js'
import { onStop } from './signals.js'
import { usageMessage } from './usage.js'
import { listeningLine } from '../listener/address.js'
import { startRecorder } from '../record/recorder.js'
import { shownTarget } from '../forward/forward.js'
import type { RecordSummary } from '../record/writer.js'

const RECORD_HELP = `Usage: mockyard record --target <url> [options]

Forwards every request to the target, answers with its real response, and writes what it saw
as <out>/routes.json and data files in <out>/data (merged into an existing routes.json).

Options:
  -t, --target <url>      the real back end, e.g. http://localhost:8080 (required)
  -o, --out <folder>      where routes.json and data/ go (default mocks)
  -p, --port <number>     port (default 9999; 0 picks a free one)
      --host <host>       host to bind (default 127.0.0.1)
      --redact <name>     a header, query or body field whose values are never written; repeatable
                          (Authorization, Cookie and Set-Cookie never are)
      --timeout <seconds> how long the target may stay silent before a request gets a 504
                          (default 30)
  -h, --help              show this help

Example:
  mockyard record --target http://localhost:8080 --out mocks --port 3001
`

const IMPORT_HELP = `Usage: mockyard import <file.har> [options]

Writes the requests of a HAR file (browser DevTools export, Playwright recordHar) as
<out>/routes.json and data files in <out>/data (merged into an existing routes.json).

Only API-like requests are imported (fetch/XHR calls, JSON and other data); the page's own
document, styles, scripts, images and fonts are left out unless --all is given.

Options:
  -o, --out <folder>      where routes.json and data/ go (default mocks)
      --redact <name>     a header, query or body field whose values are never written; repeatable
      --all               import the page's own requests too (document, styles, scripts, images, fonts)
      --origin <url>      import only the requests to this origin, e.g. https://api.example.com
                          (a browser's HAR holds third parties' requests too)
  -h, --help              show this help

Example:
  mockyard import session.har --out mocks
`

function fail(message: string, code = 2): never {
  process.stderr.write(styleText('red', message, { stream: process.stderr }) + '\n')
  process.exit(code)
}

/** A folder as the user gave it, relative to the working folder when inside it. */
/** Fails (exit 1) on an error writing into the `--out` folder (ENOTDIR, EACCES, EROFS), naming the path; returns on any other error. */
function outFolderProblem(error: unknown, out: string): void {
  const failure = error as NodeJS.ErrnoException
  const writing = failure?.syscall === 'mkdir' || failure?.syscall === 'open' || failure?.syscall === 'write' || failure?.syscall === 'rename'
  if (writing && failure.code !== undefined && failure.path !== undefined) fail(formatMessage(`cannot write into ${out}: ${failure.code} for ${failure.path}. Give --out a folder this user can create and write.`), 1)
}

function shown(folder: string): string {
  const path = relative(process.cwd(), folder)
  return path === '' ? '.' : path.startsWith('..') || isAbsolute(path) ? resolve(folder) : path
}

function summaryLine(summary: RecordSummary, out: string): string {
  const clashes = summary.clashes.length > 0 ? `; ${countOf(summary.clashes.length, 'clash')} with the existing routes (not written):\n` + summary.clashes.map((c) => `  - ${c}`).join('\n') : ''
  return formatMessage(`${countOf(summary.requests, 'request')} seen: ${countOf(summary.routes, 'route')}, ${countOf(summary.entries, 'entry')}, ${countOf(summary.files, 'file')} written in ${shown(out)}${clashes}`)
}

function parse(command: 'record' | 'import', argv: string[], options: ParseArgsOptionsConfig, allowPositionals: boolean) {
  try {
    return parseArgs({ args: argv, options, allowPositionals })
  } catch (error) {
    fail(usageMessage(error as Error, Object.keys(options), command))
  }
}

async function runRecord(argv: string[]): Promise<void> {
  const { values } = parse('record', argv, {
    target: { type: 'string', short: 't' },
    out: { type: 'string', short: 'o' },
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    redact: { type: 'string', multiple: true },
    timeout: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, false)
  if (values.help) {
    process.stdout.write(RECORD_HELP)
    return
  }
  if (typeof values.target !== 'string') fail(formatMessage('mockyard record needs --target: the back end to record. For example mockyard record --target http://localhost:8080.'))
  if (values.port !== undefined && !/^\d+$/.test(String(values.port))) fail(formatMessage(`--port takes a whole number, got "${values.port}". For example --port 3001.`))
  if (values.timeout !== undefined && !(/^\d+(\.\d+)?$/.test(String(values.timeout)) && Number(values.timeout) > 0)) fail(formatMessage(`--timeout takes a number of seconds above 0, got "${values.timeout}". For example --timeout 30.`))
  const out = (values.out as string | undefined) ?? 'mocks'
  let recorder
  try {
    recorder = await startRecorder({
      target: values.target,
      out,
      port: values.port === undefined ? undefined : Number(values.port),
      host: values.host as string | undefined,
      redact: values.redact as string[] | undefined,
      timeoutMs: values.timeout === undefined ? undefined : Number(values.timeout) * 1000,
      onRecord: (line) => process.stderr.write(line + '\n'),
    })
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message + '\n' + formatMessage(`fix ${out}/routes.json (mockyard merges into it and never overwrites it), or record into another --out.`), 1)
    const failure = error as NodeJS.ErrnoException
    if (failure.code !== undefined && isListenError(failure)) fail(listenProblem((values.host as string | undefined) ?? '127.0.0.1', values.port === undefined ? 9999 : Number(values.port), failure), 1)
    outFolderProblem(failure, out)
    fail(failure.message, 2)
  }
  process.stdout.write(listeningLine(recorder.host, recorder.port) + '\n')
  process.stderr.write(formatMessage(`recording ${shownTarget(values.target)} into ${recorder.routesFile}; stop with Ctrl+C.`) + '\n')
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal: no waiting for the writes in flight, whose temporary files (a large
      // body being spooled) would stay in data/ for good.
      recorder.discardTemporaryFiles()
      process.exit(1)
    }
    stopping = true
    process.stderr.write(formatMessage(`${signal}: stopping.`) + '\n')
    recorder.stop().then(
      (summary) => {
        process.stderr.write(summaryLine(summary, out) + '\n')
        process.exit(0)
      },
      () => process.exit(1),
    )
  }
  onStop(stop)
}

async function runImport(argv: string[]): Promise<void> {
  const { values, positionals } = parse('import', argv, {
    out: { type: 'string', short: 'o' },
    redact: { type: 'string', multiple: true },
    all: { type: 'boolean' },
    origin: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, true)
  if (values.help) {
    process.stdout.write(IMPORT_HELP)
    return
  }
  if (positionals.length !== 1) fail(formatMessage(`mockyard import takes one HAR file, got ${positionals.length}. For example mockyard import session.har --out mocks.`))
  const out = (values.out as string | undefined) ?? 'mocks'
  try {
    const result = await importHar(positionals[0]!, {
      out,
      redact: values.redact as string[] | undefined,
      all: values.all === true,
      origin: values.origin as string | undefined,
      onRecord: (entry, record) => {
        const path = record.path ?? new URL(entry.url).pathname
        const where = record.clash ? 'not written (clash, see the summary)' : record.skipped ? `not recorded: ${record.skipped}` : `-> ${record.route} ${record.method}${record.file ? ` (${record.file})` : ''}`
        process.stderr.write(`${entry.method} ${path} ${entry.status} ${where}\n`)
      },
    })
    if (result.notImported.length > 0) {
      process.stderr.write(formatMessage(`${result.notImported.length} HAR ${result.notImported.length === 1 ? 'entry was' : 'entries were'} not imported:`) + '\n' + result.notImported.map((line) => `  - ${line}`).join('\n') + '\n')
    }
    if (result.writtenAsUtf8.length > 0) {
      const count = result.writtenAsUtf8.length
      process.stderr.write(formatMessage(`${count} HAR ${count === 1 ? 'entry was' : 'entries were'} written as UTF-8, not in the charset ${count === 1 ? 'its' : 'their'} Content-Type named; the written Content-Type says charset=utf-8, so the mock sends the same text:`) + '\n' + result.writtenAsUtf8.map((line) => `  - ${line}`).join('\n') + '\n')
    }
    if (result.pageRequests.length > 0) {
      const shownRequests = result.pageRequests.slice(0, 5).join(', ') + (result.pageRequests.length > 5 ? `, and ${result.pageRequests.length - 5} more` : '')
      process.stderr.write(formatMessage(`${result.pageRequests.length} page ${result.pageRequests.length === 1 ? 'request was' : 'requests were'} left out (the page's document, styles, scripts, images, fonts): ${shownRequests}. --all imports them.`) + '\n')
    }
    if (result.otherOrigins > 0) {
      process.stderr.write(formatMessage(`${countOf(result.otherOrigins, 'entry')} to other origins than ${values.origin} ${result.otherOrigins === 1 ? 'was' : 'were'} left out (--origin).`) + '\n')
    }
    if (result.origins.length > 1) {
      // One routes.json answers one back end: the same path on two origins became one route.
      const listed = result.origins.map(({ origin, entries }) => `${origin} (${countOf(entries, 'entry')})`).join(', ')
      process.stderr.write(
        styleText('yellow', formatMessage(`the HAR holds requests to ${result.origins.length} origins, written into one routes.json as if one back end answered them all (a path two of them answer became one route): ${listed}. Import one back end at a time with --origin ${result.origins[0]!.origin}.`), { stream: process.stderr }) + '\n',
      )
    }
    process.stderr.write(summaryLine(result, out) + '\n')
  } catch (error) {
    // A problem with the HAR itself is not one with "the configuration": said as what it is.
    if (error instanceof ConfigError && error.problems.every((problem) => problem.file === resolve(positionals[0]!))) fail(error.problems.map((problem) => formatMessage(`cannot import ${formatProblem(problem)}`)).join('\n'), 1)
    if (error instanceof ConfigError) fail(error.message, 1)
    outFolderProblem(error, out)
    throw error
  }
}

/** Runs `mockyard record ...` or `mockyard import ...` (argv starts with the subcommand). */
export async function runRecordCommand(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === 'record') return runRecord(rest)
  return runImport(rest)
}
