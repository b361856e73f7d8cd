/// <reference types="node" preserve="true" />
// The declarations name Node types (node:http, NodeJS): an app's browser-only tsconfig (`types: ["vite/client"]`) needs this to compile them.
/**
 * `mockyard/node`: load configs from disk, serve them over HTTP or as middleware, or hand msw
 * handlers to your own `setupServer`; record and import traffic. What the README documents,
 * nothing more: loading, instances and the logger stay internal.
 */
export { createHandlers, createMiddleware, startMockServer, type HarnessApi, type Middleware, type RunningServer } from '../listener/server.js'
export { MockServer } from '../listener/mock-server.js'
export { validateOptions, type OptionsCheck, type MockyardOptions, type MockyardPlugin, type UnhandledRequestStrategy } from '../config/options.js'
export { ConfigError, type ConfigProblem } from '../core/errors.js'
export type { RequestRecord, RequestFilter } from '../harness/request-log.js'
export type { Coverage, OperationCoverage, Violation } from '../harness/traffic-check.js'
export { startRecorder, type RecorderOptions, type RunningRecorder } from '../record/recorder.js'
export { importHar, type ImportHarOptions, type ImportHarResult } from '../record/har.js'
export { createRecordWriter, type RecordWriter, type RecordWriterOptions, type RecordResult, type RecordSummary } from '../record/writer.js'
export type { RecordedExchange } from '../record/exchange.js'
export { propagateSessions, type PropagateSessionsOptions, type PropagatedSessions } from './propagate-sessions.js'
