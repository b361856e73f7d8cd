/**
 * What `mockyard check` reports (docs/behaviour.md, "Checking mocks: `mockyard check`").
 */
import { isAbsolute, relative } from 'node:path'

/** A path as reports show it: relative to the working directory when inside it. */
export function displayPath(file: string, cwd: string): string {
  if (!isAbsolute(file)) return file
  const rel = relative(cwd, file)
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file
}

/** The kinds of finding, one per rule the check applies. */
export type CheckKind =
  | 'config'
  | 'unknown-key'
  | 'missing-file'
  | 'invalid-json'
  | 'unreachable'
  | 'ignored'
  | 'openapi'
  | 'no-operation'
  | 'status'
  | 'content-type'
  | 'schema'
  | 'unknown-param'
  | 'not-mocked'
  | 'coverage'

/**
 * One finding. `error`s make the check fail; `info` entries (operations of the OpenAPI document no
 * route mocks) are the coverage and do not.
 */
export interface CheckEntry {
  severity: 'error' | 'info'
  kind: CheckKind
  /** The file the finding is in, relative to the working directory when inside it. */
  file: string
  /** JSON Pointer inside `file` (`''` for the whole file). */
  pointer: string
  /** Line of `pointer` in `file` (1-based), when the file could be read. */
  line?: number
  message: string
  fix: string
  /** For schema problems: the schema location, `openapi.yaml#/components/schemas/User/properties/id/type`. */
  schema?: string
  /** For problems of a data file: where the routes file names it (`routes.json#/v1~1users/file`). */
  source?: string
  /** For `not-mocked`: the operation, `GET /users/{id}`. */
  operation?: string
  /** For `coverage`: how many operations the document has, how many are mocked, how many of those by msw handlers. */
  coverage?: { operations: number; mocked: number; handlers: number }
}

/** The result of a check: every entry, errors first in the order found, then the coverage. */
export interface CheckReport {
  entries: CheckEntry[]
  /** Present when an OpenAPI document was given and loaded. */
  coverage?: { operations: number; mocked: number; handlers: number }
}
