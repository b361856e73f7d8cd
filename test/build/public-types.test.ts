/**
 * The public types as an app's TypeScript sees them (`npm run build` first): a small project,
 * `strict`, whose `node_modules/mockyard` is this checkout (its `package.json` exports and the
 * declarations in `dist/`), checked under `module: nodenext`, under `moduleResolution: bundler`, and
 * with the `browser` condition that Vitest's browser mode needs. Routes read from JSON (this
 * repository's `mocks/routes.json` and every routes file the README and the guides show) and
 * routes held in variables type-check where the routes go; the old server's options pass; a
 * predicate may return any value; and a misspelt route key or option is still an error.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readDoc, shippedDocs } from '../readme/docs.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The app's code: each line says what a user writes, and the error lines what must stay an error. */
const APP = `import routes from './mocks/routes.json' with { type: 'json' }
import { MockServer, startMockServer, type MockyardOptions } from 'mockyard/node'
import { setupMockServer } from 'mockyard/vitest'
import { createAdminClient } from 'mockyard/playwright'
import { startWorker } from 'mockyard/browser'
import { mockyard } from 'mockyard/vite'
import type { RoutesConfig } from 'mockyard'

// The repository's own routes file, imported as JSON.
export const fromJson = () => startMockServer({ routes, data: 'mocks/data' })
export const several = () => startMockServer({ routes: ['mocks/other.json', routes] })

// Routes held in variables: literals widen (fault: string, by: string, close: boolean).
const flaky = { 'v1/flaky': { fault: 'reset' }, 'v1/cut': { get: [{ response: [{ fault: 'truncate' }, { status: 503 }] }] } }
const streamed = { 'v1/chat': { post: { file: 'chat.ndjson', stream: { by: 'line', delay: 30 } } }, 'v1/live': { events: [{ data: 1, id: '1' }, { close: true }] } }
const withSchema = { $schema: './node_modules/mockyard/schema/routes.json', 'v1/users': { file: 'users.json' } }
const socket = { 'v1/chat': { websocket: [{ on: { type: 'say', room: 'lobby' }, send: 'ok' }, { on: { type: 'ping' }, send: 'pong' }, { on: 'bye', close: 1000 }] } }
export const fromVariables = () => [flaky, streamed, withSchema, socket].map((table) => startMockServer({ routes: table }))
const tables = [{ 'v1/a': { file: 'a.json' } }, { 'v1/b': { status: 204 } }] // each typed with the other's key as undefined
export const fromArray = () => startMockServer({ routes: tables })
export const annotated: RoutesConfig[] = [routes, withSchema, socket]

// The browser without Vite: routes imported as JSON go in the config as they are.
export const inBrowser = () => startWorker({ config: { sources: [{ file: 'mocks/routes.json', routes, dataUrl: '/mocks/data/' }, { file: 'more', routes: withSchema }] } })

// Options of the old Express mock server: accepted (and ignored).
export const old = new MockServer({ enabled: true, user: 'x', cache: false, data: './data', routes: './routes.json', port: 9999, latency: 250 })
export const typed: MockyardOptions = { enabled: true, user: 'x', cache: false, routes: './routes.json' }
export const started = () => startMockServer({ enabled: true, routes: './routes.json' })
export const plugin = mockyard({ enabled: true, routes: 'mocks/routes.json' })

// Predicates return whatever is handy; the run time tests truthiness.
const mocks = setupMockServer({ enabled: true, routes: 'mocks/routes.json' })
export const waited = () => mocks.waitForRequest((record) => record.body?.match(/beta/)?.[0])
export const overridden = () => [routes, withSchema, socket].map((table) => mocks.useRoutes(table))
const admin = createAdminClient('http://127.0.0.1:4010')
export const waitedRemotely = () => admin.waitForRequest((request) => request.body?.match(/beta/)?.[0])
export const overriddenRemotely = () => [routes, withSchema, socket].map((table) => admin.useRoutes(table))

// Still errors (each checked below for the name it must report):
// @ts-expect-error a misspelt key of a route
export const typo = () => startMockServer({ routes: { 'v1/users': { fiel: 'users.json' } } })
// @ts-expect-error a misspelt key of a method entry
export const entryTypo = () => startMockServer({ routes: { 'v1/claims': { get: [{ file: 'a.json', parms: { status: 'open' } }] } } })
// @ts-expect-error a value of the wrong type: status
export const wrongType = () => startMockServer({ routes: { 'v1/users': { status: '201' } } })
// @ts-expect-error a misspelt option
export const unknownOption = () => startMockServer({ routes: 'mocks/routes.json', rotues: 'x' })
// @ts-expect-error a misspelt option of the old server's class
export const unknownClassOption = new MockServer({ enabled: true, latancy: 0 })
`

/** What each `@ts-expect-error` line must report, once the comment is gone. */
const EXPECTED_ERRORS = ["'fiel'", "'parms'", "'string' is not assignable to type 'number'", "'rotues'", "'latancy'"]

/** The settings of the three programs: Node's resolution, a bundler's, and Vitest's browser mode. */
const BASE: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: ['node'],
  strict: true,
  noEmit: true,
  resolveJsonModule: true,
  skipLibCheck: true, // the declarations themselves are checked with skipLibCheck: false by test/package
}
const NODENEXT: ts.CompilerOptions = { ...BASE, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }
const BUNDLER: ts.CompilerOptions = { ...BASE, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }

let project: string

/**
 * The routes files the README and the guides show whole: the JSON blocks of an `app:` routes file,
 * and those shown but not run whose keys are route keys (or `$schema`); behaviour.md quotes routes
 * out of their files, which do not parse alone.
 */
function documentedRoutesFiles(): Array<{ name: string; text: string }> {
  return shippedDocs().flatMap((doc) =>
    [...readDoc(doc).matchAll(/(?:<!-- (app|not run): ([^\n]*?) -->\n)?^```json\n([\s\S]*?)^```$/gm)].flatMap((match, index) => {
      const [, kind, detail = '', text = ''] = match
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        return []
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return []
      const routesFile = kind === 'app' ? /routes\.json$/.test(detail) : kind === 'not run' && Object.keys(parsed).some((key) => key.includes('/') || key === '$schema')
      return routesFile ? [{ name: `${doc.replace(/\W+/g, '-')}-${index + 1}`, text }] : []
    }),
  )
}

/** The app with one module per documented routes file, each imported as JSON and passed where routes go. */
function documentedRoutesModule(files: Array<{ name: string; text: string }>): string {
  const imports = files.map((file, index) => `import routes${index} from './mocks/docs/${file.name}.json' with { type: 'json' }`)
  const uses = files.map((_, index) => `  () => startMockServer({ routes: routes${index} }),\n  () => setupMockServer({ routes: [routes${index}] }).useRoutes(routes${index}),`)
  return `${imports.join('\n')}\nimport { startMockServer } from 'mockyard/node'\nimport { setupMockServer } from 'mockyard/vitest'\nexport const uses = [\n${uses.join('\n')}\n]\n`
}

/** The diagnostics of a program made of `files` (relative to the project) under `options`, as text. */
function check(files: string[], options: ts.CompilerOptions): string[] {
  const host = ts.createCompilerHost(options)
  host.getCurrentDirectory = () => project // where `types: ['node']` resolves from
  const program = ts.createProgram({ rootNames: files.map((file) => join(project, file)), options, host })
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? `${d.file.fileName.replace(project + '/', '')}(${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1})` : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'mockyard-types-'))
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
  mkdirSync(join(project, 'node_modules'))
  // The checkout as the installed package: its package.json (exports) and dist/ declarations.
  symlinkSync(ROOT, join(project, 'node_modules', 'mockyard'), 'dir')
  symlinkSync(join(ROOT, 'node_modules', '@types'), join(project, 'node_modules', '@types'), 'dir')
  mkdirSync(join(project, 'mocks', 'docs'), { recursive: true })
  writeFileSync(join(project, 'mocks', 'routes.json'), readFileSync(join(ROOT, 'mocks', 'routes.json')))
  const documented = documentedRoutesFiles()
  for (const file of documented) writeFileSync(join(project, 'mocks', 'docs', `${file.name}.json`), file.text)
  writeFileSync(join(project, 'documented.ts'), documentedRoutesModule(documented))
  writeFileSync(join(project, 'app.ts'), APP)
  writeFileSync(join(project, 'errors.ts'), APP.replace(/^\/\/ @ts-expect-error.*\n/gm, ''))
  writeFileSync(
    join(project, 'browser-mode.test.ts'),
    `import { setupMockServer } from 'mockyard/vitest'
const mocks = setupMockServer({ reportUnused: true })
export const worker = () => mocks.worker?.stop()
// @ts-expect-error in the browser, routes come from the Vite plugin: a routes option is refused
setupMockServer({ routes: 'mocks/routes.json' })
`,
  )
}, 30_000)

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true })
})

describe("the package's types in an app (strict)", () => {
  it('finds the routes files the README and the guides show', () => {
    const names = documentedRoutesFiles().map((file) => file.name)
    // The main example, streams, websocket, the $schema key (check.md), faults and what record writes.
    expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^README-md-/), expect.stringMatching(/^docs-streams-md-/), expect.stringMatching(/^docs-websocket-md-/), expect.stringMatching(/^docs-check-md-/), expect.stringMatching(/^docs-faults-md-/), expect.stringMatching(/^docs-record-md-/)]))
  })

  it('under module: nodenext, the app type-checks: JSON routes, routes in variables, old options, mockyard/browser, loose predicates', () => {
    expect(check(['app.ts', 'documented.ts'], NODENEXT)).toEqual([])
  }, 60_000)

  it('under moduleResolution: bundler too', () => {
    expect(check(['app.ts', 'documented.ts'], BUNDLER)).toEqual([])
  }, 60_000)

  it('a misspelt route key, a wrong value type and misspelt options are still errors, naming the culprit', () => {
    const errors = check(['errors.ts'], NODENEXT)
    expect(errors).toHaveLength(EXPECTED_ERRORS.length)
    EXPECTED_ERRORS.forEach((text, index) => expect(errors[index]).toContain(text))
  }, 60_000)

  it("with customConditions: ['browser'] (Vitest's browser mode, docs/vitest.md), mockyard/vitest has the browser handle", () => {
    expect(check(['browser-mode.test.ts'], { ...BUNDLER, customConditions: ['browser'] })).toEqual([])
  }, 60_000)

  it('Node still refuses mockyard/browser at run time: the types condition comes first only for TypeScript', () => {
    const script = `import('mockyard/browser').then(() => console.log('imported'), (error) => console.log(error.code))`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' })
    expect(result.stdout.trim()).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED')
  })
})
