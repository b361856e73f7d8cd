/**
 * `qs`, which parses form bodies (urlencoded and multipart fields), loaded by the first form body
 * an engine reads rather than when mockyard loads: Vitest starts a process per test file, and a
 * file whose requests carry no form body should not pay for it (bench/README.md, "Per-file cost
 * under Vitest"). No state here: each reader (an engine, the record writer) keeps the parser
 * `loadFormParser()` resolved with and hands it to `parseBody`; the module system loads `qs` once.
 */
/**
 * The form parser `parseBody` needs for a form body: `qs`'s `parse`, typed here by hand so that
 * the published declarations never name `qs` (an app's `skipLibCheck: false` would then need
 * `@types/qs`).
 */
export interface FormParser {
  parse(text: string, options?: Record<string, unknown>): unknown
}

/**
 * Loads `qs`; await it only when a body is a form (`isFormBody`).
 *
 * @example
 * const forms = isFormBody(type) ? await loadFormParser() : undefined
 * const tree = parseBody(bytes, type, forms)
 */
export function loadFormParser(): Promise<FormParser> {
  return import('qs').then((module) => ((module as { default?: FormParser }).default ?? module) as FormParser)
}

/** Whether a body of this content type is a form (its parse needs `qs`). */
export function isFormBody(contentType: string | null): boolean {
  if (!contentType) return false
  const type = contentType.toLowerCase()
  return type.includes('application/x-www-form-urlencoded') || type.includes('multipart/form-data')
}
