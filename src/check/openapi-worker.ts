/**
 * The thread `mockyard check --openapi` loads the document and checks the mocks in
 * (check-in-worker.ts starts it): a JSON Schema `pattern` can backtrack for an exponential time
 * (`^(a+)+$` against `aaaa…!`), Node's regular expressions cannot be interrupted, and only
 * another thread can stop this one. It announces each validation before running it, so the
 * thread that started it knows which one to blame and skip.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { checkOpenApi, loadOpenApi, type RoutesToCheck } from './check-openapi.js'
import { displayPath } from './problem.js'
import { DocumentError } from './read-document.js'

/** What the thread is given. */
export interface WorkerInput {
  path: string
  cwd: string
  sources: RoutesToCheck[]
  /** Validations (ValidationStep ids) not to run: they ran too long in an earlier thread. */
  skip: string[]
}

async function run(input: WorkerInput): Promise<void> {
  const port = parentPort!
  try {
    const api = await loadOpenApi(input.path, (file) => displayPath(file, input.cwd))
    const result = await checkOpenApi(api, input.sources, {
      skip: new Set(input.skip),
      before: (step) => port.postMessage({ type: 'step', step }),
      after: () => port.postMessage({ type: 'stepDone' }),
    })
    port.postMessage({ type: 'done', result })
  } catch (error) {
    const message = ((error as Error).message ?? String(error)).split('\n')[0]!.replace(/\.$/, '')
    const details = error instanceof DocumentError ? { place: error.place, fix: error.fix } : {}
    port.postMessage({ type: 'failed', message, ...details })
  }
}

if (parentPort && workerData) void run(workerData as WorkerInput)
