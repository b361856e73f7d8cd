/**
 * `qs`, which parses form bodies (urlencoded and multipart fields), loaded by the first form body
 * an engine reads rather than when mockyard loads: Vitest starts a process per test file, and a
 * file whose requests carry no form body should not pay for it (bench/README.md, "Per-file cost
 * under Vitest"). The loaded module is kept, as the module system keeps any import.
 */
import type qsModule from 'qs'

type Qs = typeof qsModule

let parser: Qs | undefined
let loading: Promise<Qs> | undefined

/** `qs`, when loaded. */
export function formParser(): Qs | undefined {
  return parser
}

/**
 * Loads `qs` (once).
 *
 * @example
 * if (formParser() === undefined) await loadFormParser()
 */
export function loadFormParser(): Promise<Qs> {
  loading ??= import('qs').then((module) => (parser = ((module as { default?: Qs }).default ?? module) as Qs))
  return loading
}

/** Whether a body of this content type is a form (its parse needs `qs`). */
export function isFormBody(contentType: string | null): boolean {
  if (!contentType) return false
  const type = contentType.toLowerCase()
  return type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')
}
