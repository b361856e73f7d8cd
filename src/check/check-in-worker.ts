/**
 * Runs the OpenAPI side of `mockyard check` in a worker thread (openapi-worker.ts), within time
 * and memory limits (docs/behaviour.md, "Checking mocks: `mockyard check`", "Hostile
 * documents"). A validation that runs past its limit (a schema `pattern` backtracking on a
 * crafted value) is stopped with the thread, reported, and skipped by a fresh thread that runs
 * the rest, so every other problem is still reported.
 */
import { Worker } from 'node:worker_threads'
import type { OpenApiResult, RoutesToCheck, ValidationStep } from './check-openapi.js'
import type { WorkerInput } from './openapi-worker.js'
import type { CheckEntry } from './problem.js'

/** How long loading the document may take (bundling, compiling: linear work, a backstop). */
export const LOAD_LIMIT_MS = 20_000
/** How long one data file's validation may take; real ones take milliseconds. */
export const VALIDATION_LIMIT_MS = 4_000
/** How many validations may be stopped before the check gives up on the document. */
const MAX_STOPPED = 3
/** The worker's heap: a 32 MB document bundles and compiles in far less. */
const HEAP_LIMIT_MB = 1024

/** The thread's file: beside this module in the sources, `dist/check/` in the build. */
const WORKER_URL = new URL('../check/openapi-worker.js', import.meta.url)

type Outcome =
  | { type: 'done'; result: OpenApiResult }
  | { type: 'failed'; message: string; place?: { file: string; pointer: string }; fix?: string }
  | { type: 'stopped'; step: ValidationStep }
  | { type: 'limit'; message: string; fix: string }

/** One thread's run: its result, its failure, or the validation it was stopped in. */
function runOnce(input: WorkerInput): Promise<Outcome> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_URL, { workerData: input, resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB }, stdout: false, stderr: false })
    let settled = false
    let timer: NodeJS.Timeout | undefined
    const finish = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void worker.terminate()
      resolve(outcome)
    }
    const limit = (ms: number, onExpiry: () => Outcome) => {
      clearTimeout(timer)
      timer = setTimeout(() => finish(onExpiry()), ms)
    }
    const started = Date.now()
    let validations = 0
    // The limit starts again after each validation: the message says which stretch ran over, and
    // how long the whole check had run (minutes, on a document of thousands of operations).
    const slowLoad = (): Outcome => ({
      type: 'limit',
      message:
        validations === 0
          ? `loading the document took more than ${LOAD_LIMIT_MS / 1000} s and was stopped`
          : `checking against the document went ${LOAD_LIMIT_MS / 1000} s without finishing a validation, after ${validations} validations and ${Math.round((Date.now() - started) / 1000)} s in all, and was stopped`,
      fix: 'Check a smaller document, or report the document to mockyard if it is an ordinary one.',
    })
    limit(LOAD_LIMIT_MS, slowLoad)
    worker.on('message', (message: Outcome | { type: 'step'; step: ValidationStep } | { type: 'stepDone' }) => {
      if (message.type === 'step') {
        const { step } = message
        limit(VALIDATION_LIMIT_MS, () => ({ type: 'stopped', step }))
      } else if (message.type === 'stepDone') {
        validations++
        limit(LOAD_LIMIT_MS, slowLoad)
      } else finish(message)
    })
    worker.on('error', (error: Error & { code?: string }) => {
      finish(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { type: 'limit', message: `checking against the document needed more than ${HEAP_LIMIT_MB} MB of memory and was stopped`, fix: 'Check a smaller document.' }
          : { type: 'failed', message: (error.message ?? String(error)).split('\n')[0]!.replace(/\.$/, '') },
      )
    })
    worker.on('exit', (code) => finish({ type: 'failed', message: `the check's thread ended early (exit code ${code})` }))
  })
}

/** The problem of a validation that was stopped. */
function stoppedEntry(step: ValidationStep): CheckEntry {
  return {
    severity: 'error',
    kind: 'schema',
    file: step.file,
    pointer: '',
    message: `validating the data file against ${step.schema} (${step.operation}) took more than ${VALIDATION_LIMIT_MS / 1000} s and was stopped`,
    fix: 'A "pattern" with a repeated group that can itself repeat (^(a+)+$) takes exponential time on some values: write it without nested quantifiers (^a+$).',
    schema: step.schema,
    source: step.source,
  }
}

/**
 * Loads the document at `path` and checks `sources` against it in a worker thread. Resolves to
 * the result (with the problems of stopped validations among its entries) or, when the document
 * cannot be used, to the entries that say why.
 */
export async function checkInWorker(path: string, cwd: string, sources: RoutesToCheck[]): Promise<OpenApiResult | { failures: CheckEntry[] }> {
  const skip: string[] = []
  const stopped: CheckEntry[] = []
  const cloneable = sources.map((source) => ({ ...source, routes: cloneRoutes(source.routes) }))
  for (;;) {
    const outcome = await runOnce({ path, cwd, sources: cloneable, skip })
    if (outcome.type === 'done') return { ...outcome.result, entries: [...outcome.result.entries, ...stopped] }
    if (outcome.type === 'stopped' && stopped.length < MAX_STOPPED - 1) {
      stopped.push(stoppedEntry(outcome.step))
      skip.push(outcome.step.id)
      continue
    }
    const failure: CheckEntry =
      outcome.type === 'stopped'
        ? { ...stoppedEntry(outcome.step), message: `${stoppedEntry(outcome.step).message}; ${MAX_STOPPED} validations were stopped, so the rest of the check against the document was given up` }
        : outcome.type === 'limit'
          ? { severity: 'error', kind: 'openapi', file: path, pointer: '', message: `the OpenAPI document cannot be used: ${outcome.message}`, fix: outcome.fix }
          : {
              severity: 'error',
              kind: 'openapi',
              file: outcome.place?.file ?? path,
              pointer: outcome.place?.pointer ?? '',
              message: `the OpenAPI document cannot be used: ${outcome.message}`,
              fix: outcome.fix ?? 'Give an OpenAPI 3.0 or 3.1 document (JSON or YAML) whose $refs resolve.',
            }
    return { failures: [...stopped, failure] }
  }
}

/** Routes as a worker can receive them: a config file's routes may hold functions, which do not cross threads. */
function cloneRoutes(routes: Record<string, unknown>): Record<string, unknown> {
  try {
    return structuredClone(routes)
  } catch {
    return JSON.parse(JSON.stringify(routes)) as Record<string, unknown>
  }
}
