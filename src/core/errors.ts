import { countOf } from './count.js'

/** One problem found in a configuration: where it is and what to do about it. */
export interface ConfigProblem {
  /** The file the problem is in (as given or resolved), or `options` for inline options. */
  file: string
  /** JSON Pointer (RFC 6901) to the offending value, `''` for the whole document. */
  pointer: string
  /** What is wrong. */
  message: string
  /** What to do about it. */
  fix: string
}

const PREFIX = '[mockyard]'

/** Formats a message the way every mockyard message is written: `[mockyard] what: why. What to do.` */
export function formatMessage(message: string): string {
  return `${PREFIX} ${message}`
}

/** A message without the prefix `formatMessage` gives it, to quote it inside another message. */
export function withoutPrefix(message: string): string {
  return message.startsWith(`${PREFIX} `) ? message.slice(PREFIX.length + 1) : message
}

/** Escapes one JSON Pointer token (`/` -> `~1`, `~` -> `~0`). */
export function pointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1')
}

/** Builds a JSON Pointer from tokens: `['v1/bad', 'get', 0]` -> `/v1~1bad/get/0`. */
export function toPointer(tokens: ReadonlyArray<string | number>): string {
  return tokens.map((t) => '/' + pointerToken(t)).join('')
}

export function formatProblem(problem: ConfigProblem): string {
  return `${problem.file}#${problem.pointer}: ${problem.message}. ${problem.fix}`
}

/**
 * A configuration that cannot be loaded. `problems` lists every problem found, each with its
 * file, JSON pointer and fix; the message repeats them one per line.
 *
 * @example
 * try { await createHandlers({ routes: 'routes.json' }) } catch (error) {
 *   if (error instanceof ConfigError) console.log(error.problems.map((p) => p.pointer))
 * }
 */
export class ConfigError extends Error {
  override name = 'ConfigError'
  readonly problems: ConfigProblem[]
  /** Warnings found beside the problems (unknown option names): listed in the message too, so that one run shows every bad option. */
  readonly warnings: ConfigProblem[]

  constructor(problems: ConfigProblem[], options?: { cause?: unknown; warnings?: ConfigProblem[] }) {
    const count = countOf(problems.length, 'problem')
    const warnings = options?.warnings ?? []
    const listed = (list: ConfigProblem[]) => list.map((p) => '  - ' + formatProblem(p)).join('\n')
    super(
      formatMessage(`the configuration has ${count}:\n` + listed(problems) + (warnings.length > 0 ? `\nand ${countOf(warnings.length, 'warning')}:\n` + listed(warnings) : '')),
      options?.cause === undefined ? undefined : { cause: options.cause },
    )
    this.problems = problems
    this.warnings = warnings
  }
}
