/**
 * `mockyard/browser`: the route engine in msw's service worker, for local development in the
 * browser. Imports nothing from Node: the core, the msw adapter and `msw/browser` only.
 */
export { startWorker, BROWSER_LATENCY, type MockyardWorker, type StartWorkerOptions, type BrowserUnhandledStrategy } from './start-worker.js'
export { fetchFiles, type FetchFilesOptions } from './fetch-files.js'
export { CONFIG_PATH, DATA_PATH, WORKER_PATH, type SerializedConfig, type SerializedSource } from './config.js'
export type { RequestFilter, RequestRecord } from '../harness/request-log.js'
