/**
 * The code blocks of the README and of the guides under docs/, as written, in one app. Each block
 * carries a marker on the line above it saying what it is:
 *
 * - `<!-- app: PATH -->`: a file of the app (`mocks/routes.json`, `mocks/config.js`); every block
 *   naming the same file holds the same text;
 * - `<!-- run: node -->`: a module run with Node in the app; it must exit 0;
 * - `<!-- run: vitest -->`: a test file run by Vitest in the app; its tests must pass;
 * - `<!-- run: node-test -->`: a test file run by `node --test` in the app; its tests must pass;
 * - `<!-- run: jest -->`: a Jest test file (CommonJS); Jest is not installed here, so
 *   test/runners/runners.test.ts runs these blocks in the fresh Jest projects it installs;
 * - `<!-- run: vite -->`: a `vite.config.ts` a Vite dev server starts with; the plugin must serve
 *   the route table and msw's worker script;
 * - `<!-- run: config -->`: a config file, loaded by `new MockServer(file)`, which must answer;
 * - `<!-- recipe: PATH -->`: a file of this repository (the Playwright recipe's app) that holds
 *   the block verbatim, run by its own tests;
 * - `<!-- not run: REASON -->`: for what cannot run here (a real back end, a fixed port, page code
 *   run by the browser tests), with the reason.
 *
 * A block without a marker fails the first test, so a new snippet is run or says why not.
 * docs/behaviour.md is the rules reference, with examples of routes files, not snippets of an app:
 * its links are checked (links.test.ts), its blocks are not.
 *
 * The app is a folder with `mocks/`, the data files its routes name, and `node_modules/mockyard`
 * linking this package (its built `dist/`: `npm run build` first), as an installed package is.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { codeBlocks, ROOT, shippedDocs, type CodeBlock } from './docs.js'

/** A block of a shipped guide with the marker above it. */
interface MarkedBlock extends CodeBlock {
  /** `app`, `run`, `recipe` or `not run`; undefined when the block has no marker. */
  kind: string | undefined
  /** What follows the kind: a path, how to run it, or why it does not run. */
  detail: string
  /** Where it is, for messages: `docs/node.md#3`. */
  where: string
}

/** Every code block with a language, with its marker. */
function markedBlocks(): MarkedBlock[] {
  const blocks: MarkedBlock[] = []
  for (const doc of shippedDocs().filter((file) => file !== 'docs/behaviour.md')) {
    const text = readFileSync(join(ROOT, doc), 'utf8')
    let index = 0
    for (const match of text.matchAll(/(?:<!-- (app|run|recipe|not run): ([^\n]*?) -->\n)?^```(\w+)\n([\s\S]*?)^```$/gm)) {
      blocks.push({ doc, lang: match[3]!, code: match[4]!, kind: match[1], detail: match[2] ?? '', where: `${doc}#${++index}` })
    }
  }
  return blocks
}

/** Whether `text` holds the block's pieces in order: the lines between its `// …` lines, each verbatim. */
function holdsInOrder(text: string, code: string): boolean {
  let from = 0
  for (const piece of code.split(/^[ \t]*\/\/ …\n/m)) {
    const at = text.indexOf(piece, from)
    if (at === -1) return false
    from = at + piece.length
  }
  return true
}

/** The syntax errors TypeScript finds in a block (none for one that parses as pasted). */
function syntaxErrors(code: string, fileName: string): string[] {
  const output = ts.transpileModule(code, { fileName, reportDiagnostics: true, compilerOptions: { jsx: ts.JsxEmit.Preserve } })
  return (output.diagnostics ?? []).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
}

const blocks = markedBlocks()
const byKind = (kind: string, detail?: string) => blocks.filter((block) => block.kind === kind && (detail === undefined || block.detail === detail))

let app: string

/** Runs a command in the app, with a timeout; never throws. */
function runInApp(command: string, args: string[], timeout = 60_000) {
  return spawnSync(command, args, { cwd: app, encoding: 'utf8', timeout, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } })
}

beforeAll(() => {
  // Inside the repository, so the app's own imports (msw, vitest, express) resolve from its node_modules.
  mkdirSync(join(ROOT, '.tmp'), { recursive: true })
  app = mkdtempSync(join(ROOT, '.tmp', 'snippets-app-'))
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'snippets-app', private: true, type: 'module' }))
  mkdirSync(join(app, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(ROOT, join(app, 'node_modules', 'mockyard'), 'dir')
  symlinkSync(join('..', 'mockyard', 'dist', 'cli', 'bin.js'), join(app, 'node_modules', '.bin', 'mockyard'))
  writeFileSync(join(app, 'vitest.config.mjs'), 'export default {}\n')
  for (const block of byKind('app')) {
    mkdirSync(dirname(join(app, block.detail)), { recursive: true })
    writeFileSync(join(app, block.detail), block.code)
  }
  // The data files the app's routes name: each answers its own name.
  mkdirSync(join(app, 'mocks', 'data'), { recursive: true })
  const routes = readFileSync(join(app, 'mocks', 'routes.json'), 'utf8')
  for (const [, file] of routes.matchAll(/"file": "([^"]+)"/g)) writeFileSync(join(app, 'mocks', 'data', file!), JSON.stringify({ file }))
}, 30_000)

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true })
})

describe('the code blocks of the README and the guides', () => {
  it('every block is part of the app, runs, or says why it does not', () => {
    expect(blocks.length).toBeGreaterThan(40)
    expect(blocks.filter((block) => !block.kind).map((block) => `${block.where} (${block.code.split('\n')[0]})`)).toEqual([])
    expect(blocks.filter((block) => block.kind === 'not run' && block.detail.trim().length < 10).map((block) => block.where)).toEqual([])
    const known = new Set(['node', 'vitest', 'vite', 'config', 'node-test', 'jest'])
    expect(byKind('run').filter((block) => !known.has(block.detail)).map((block) => `${block.where}: run: ${block.detail}`)).toEqual([])
  })

  it('the app: every block naming a file of it holds the same text', () => {
    const files = new Map<string, string>()
    const differing: string[] = []
    for (const block of byKind('app')) {
      const seen = files.get(block.detail)
      if (seen !== undefined && seen !== block.code) differing.push(`${block.where}: ${block.detail}`)
      files.set(block.detail, block.code)
    }
    expect(differing).toEqual([])
    // The shared app's files; a feature's guide keeps its own under mocks/<feature>/.
    expect([...files.keys()].filter((path) => !/^mocks\/[\w-]+\//.test(path)).sort()).toEqual(['mocks/config.js', 'mocks/routes.json'])
  })

  it('the Playwright recipe: its files hold the blocks verbatim (a `// …` line stands for lines left out), and each block parses as pasted', () => {
    const recipes = byKind('recipe')
    expect(recipes.length).toBeGreaterThanOrEqual(4)
    const missing = recipes.filter((block) => !holdsInOrder(readFileSync(join(ROOT, block.detail), 'utf8'), block.code)).map((block) => `${block.where} -> ${block.detail}`)
    expect(missing).toEqual([])
    // A block cut short (an object with no closing brace) still matches its file: it must parse too.
    const broken = recipes
      .filter((block) => ['js', 'ts', 'tsx', 'jsx'].includes(block.lang))
      .map((block) => [block.where, syntaxErrors(block.code, `snippet.${block.lang}`)] as const)
      .filter(([, errors]) => errors.length > 0)
    expect(broken).toEqual([])
  })

  it('the Node blocks run and exit 0', () => {
    const nodeBlocks = byKind('run', 'node')
    expect(nodeBlocks.length).toBeGreaterThan(5)
    const failed: string[] = []
    nodeBlocks.forEach((block, index) => {
      const file = join(app, `snippet-${index}.${block.lang === 'ts' ? 'mts' : 'mjs'}`)
      writeFileSync(file, block.code)
      const result = runInApp(process.execPath, [file])
      if (result.status !== 0) failed.push(`${block.where} (exit ${result.status}):\n${block.code}\n${result.stderr}`)
    })
    expect(failed).toEqual([])
  }, 180_000)

  it('the Vitest blocks pass in one Vitest run of the app', () => {
    const vitestBlocks = byKind('run', 'vitest')
    expect(vitestBlocks.length).toBeGreaterThanOrEqual(3)
    vitestBlocks.forEach((block, index) => writeFileSync(join(app, `snippet-${index}.test.ts`), block.code))
    const result = runInApp(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], 120_000)
    const output = result.stdout + result.stderr
    expect(output).toContain(`Test Files  ${vitestBlocks.length} passed`)
    expect(result.status).toBe(0)
  }, 150_000)

  it('the node:test blocks pass in one node --test run of the app', () => {
    const nodeTestBlocks = byKind('run', 'node-test')
    expect(nodeTestBlocks.length).toBeGreaterThanOrEqual(2)
    const files = nodeTestBlocks.map((block, index) => {
      const file = join(app, `snippet-node-test-${index}.test.mjs`)
      writeFileSync(file, block.code)
      return file
    })
    const result = runInApp(process.execPath, ['--test', ...files], 120_000)
    expect(result.stdout + result.stderr).toMatch(/ℹ fail 0\n/)
    expect(result.stdout).toMatch(new RegExp(`ℹ pass [1-9]`))
    expect(result.status).toBe(0)
  }, 150_000)

  it('the Jest blocks are there for test/runners/runners.test.ts to run', () => {
    expect(byKind('run', 'jest').length).toBeGreaterThanOrEqual(2)
  })

  it('the config blocks load in MockServer and answer', () => {
    const configs = byKind('run', 'config')
    expect(configs.length).toBeGreaterThanOrEqual(1)
    const failed: string[] = []
    configs.forEach((block, index) => {
      // Beside the app's routes.json, as the block's `// mocks/config.js` has it.
      const file = join(app, 'mocks', `config-snippet-${index}.js`)
      writeFileSync(file, block.code)
      const script = `import { MockServer } from 'mockyard/node'
const server = new MockServer(${JSON.stringify(file)})
const { url } = await server.start({ port: 0, host: '127.0.0.1', latency: 0, logProvider: () => ({ log() {}, debug() {}, info() {}, warn() {}, error() {} }) })
const statuses = []
for (const path of ['/v1/users', '/api/v1/notifications']) statuses.push((await fetch(url + path)).status)
await server.stop()
console.log(statuses.join(' '))`
      const runner = join(app, `config-runner-${index}.mjs`)
      writeFileSync(runner, script)
      const result = runInApp(process.execPath, [runner])
      if (result.status !== 0 || !result.stdout.trim().startsWith('200')) failed.push(`${block.where}: ${result.stdout}${result.stderr}`)
    })
    expect(failed).toEqual([])
  }, 60_000)

  it('the vite.config blocks start a dev server whose plugin serves the route table and the worker script', async () => {
    const viteBlocks = byKind('run', 'vite')
    expect(viteBlocks.length).toBeGreaterThanOrEqual(1)
    const { createServer } = await import('vite')
    for (const [index, block] of viteBlocks.entries()) {
      const configFile = join(app, `vite-${index}.config.ts`)
      writeFileSync(configFile, block.code)
      const server = await createServer({ configFile, root: app, logLevel: 'silent', server: { host: '127.0.0.1', port: 0, watch: null } })
      await server.listen()
      try {
        const base = server.resolvedUrls!.local[0]!.replace(/\/$/, '')
        const config = await fetch(`${base}/@mockyard/config.json`)
        expect([block.where, config.status]).toEqual([block.where, 200])
        expect(JSON.stringify(await config.json())).toContain('v1/claims')
        expect([block.where, (await fetch(`${base}/mockServiceWorker.js`)).status]).toEqual([block.where, 200])
      } finally {
        await server.close()
      }
    }
  }, 60_000)
})
