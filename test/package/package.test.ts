/**
 * Packaging, as a release is made: a clean clone of the committed HEAD (no `dist/`; the
 * repository's node_modules linked in rather than installed again) is packed with its scripts,
 * so `prepack` builds `dist/`. The tarball holds `dist/` and every file the README and the docs
 * link to; it installs into a fresh project, every entry point imports (and
 * the environment-specific ones refuse the wrong environment), its types compile in an app's
 * browser-only tsconfig, source maps point at files the package contains, it has no install
 * script, and the bin runs.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { relativeLinks, shippedDocs } from '../readme/docs.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; bin: Record<string, string>; version: string }
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 })

let project: string
let packDir: string
let clone: string
let cloneHadDist: boolean
let packedFiles: string[]

/** A clean clone of the committed HEAD, as a release is made from: no dist/, no untracked files. */
function cleanClone(): string {
  const folder = mkdtempSync(join(tmpdir(), 'mockyard-clone-'))
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
  execFileSync('git', ['clone', '--quiet', '--no-checkout', ROOT, folder])
  execFileSync('git', ['checkout', '--quiet', head], { cwd: folder })
  // `npm ci` would install the same tree again: the repository's own is linked instead.
  symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir')
  return folder
}

beforeAll(() => {
  packDir = mkdtempSync(join(tmpdir(), 'mockyard-pack-'))
  clone = cleanClone()
  cloneHadDist = existsSync(join(clone, 'dist'))
  // With its scripts: prepack builds dist/. Its output goes to stderr, the JSON to stdout.
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', packDir], clone)) as Array<{ filename: string; files: Array<{ path: string }> }>
  packedFiles = packed[0]!.files.map((file) => file.path)
  const tarball = join(packDir, packed[0]!.filename)
  project = mkdtempSync(join(tmpdir(), 'mockyard-consumer-'))
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  const versionOf = (name: string) => JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.resolve(`${name}/package.json`))), 'package.json'), 'utf8')).version as string
  const peers = ['msw', 'vitest', 'vite', '@playwright/test', '@types/node'].map((name) => `${name}@${versionOf(name)}`)
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', tarball, ...peers], project)
}, 300_000)

afterAll(() => {
  for (const folder of [project, packDir, clone]) if (folder) rmSync(folder, { recursive: true, force: true })
})

describe('packing from a clean clone', () => {
  it('starts with no dist/: the build is prepack\'s', () => {
    expect(cloneHadDist).toBe(false)
    expect(existsSync(join(clone, 'dist', 'cli', 'bin.js'))).toBe(true)
  })

  it('the tarball holds dist/: every entry point, its types and the bin', () => {
    // Conditions may nest (`mockyard/jest`'s `require`, `mockyard/vitest`'s `browser`): every target.
    const targetsOf = (value: unknown): unknown[] => (typeof value === 'object' && value !== null ? Object.values(value).flatMap(targetsOf) : [value])
    const targets = Object.values(pkg.exports).flatMap(targetsOf)
    const wanted = [...targets, ...Object.values(pkg.bin)].filter((target): target is string => typeof target === 'string').map((target) => target.replace(/^\.\//, ''))
    expect(wanted.filter((file) => !packedFiles.includes(file))).toEqual([])
    expect(packedFiles.filter((file) => file.startsWith('dist/')).length).toBeGreaterThan(30)
  })

  it('the tarball holds every file the README and the docs link to, and the docs themselves', () => {
    const docs = shippedDocs(clone)
    expect(docs.length).toBeGreaterThan(5)
    expect(docs.filter((doc) => !packedFiles.includes(doc))).toEqual([])
    const links = docs.flatMap((doc) => relativeLinks(doc, clone))
    expect(links.length).toBeGreaterThan(20)
    expect(links.filter((link) => !packedFiles.includes(link.target)).map((link) => `${link.doc}: ${link.href}`)).toEqual([])
  })

  it('npx mockyard runs from the installed tarball', () => {
    const result = spawnSync('npx', ['--no-install', 'mockyard', '--version'], { cwd: project, encoding: 'utf8' })
    expect(result.stdout.trim()).toBe(pkg.version)
    expect(result.status).toBe(0)
  })
})

/** Every file under a folder, recursively. */
function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
}

describe('the packed package', () => {
  // JSON files (package.json, the routes schema) are not modules with types: tested below.
  const entries = Object.entries(pkg.exports).filter(([key]) => !key.endsWith('.json'))

  // mockyard/vitest registers Vitest hooks: it is imported by a real Vitest run below.
  it.each(entries.filter(([key]) => key !== './vitest').map(([key, value]) => [key, value]))('%s resolves and imports in Node (or refuses, when browser-only)', (key, value) => {
    const specifier = 'mockyard' + (key === '.' ? '' : key.slice(1))
    const script = `import(${JSON.stringify(specifier)}).then((m) => console.log(JSON.stringify(Object.keys(m))), (e) => { console.log('ERR ' + e.code); process.exit(3) })`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' })
    if ((value as { node?: null }).node === null) {
      expect(result.stdout).toContain('ERR ERR_PACKAGE_PATH_NOT_EXPORTED')
    } else {
      expect(result.stderr).toBe('')
      expect(JSON.parse(result.stdout).length).toBeGreaterThan(0)
    }
  })

  it('ships types for every entry point', () => {
    for (const [, value] of entries) {
      const types = (value as { types?: string }).types
      expect(types).toMatch(/^\.\/dist\/.+\.d\.ts$/)
      expect(existsSync(join(project, 'node_modules', 'mockyard', types!))).toBe(true)
    }
  })

  it("types resolve under TypeScript's node10 resolution too (ts-jest's module: commonjs), by typesVersions: jest to its CommonJS types", async () => {
    const ts = (await import('typescript')).default
    const options = { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 }
    const resolved = entries.map(([key]) => {
      const found = ts.resolveModuleName('mockyard' + (key === '.' ? '' : key.slice(1)), join(project, 'app.ts'), options, ts.sys).resolvedModule
      return [key, found?.resolvedFileName.replace(join(project, 'node_modules', 'mockyard') + '/', './')] as const
    })
    expect(resolved).toEqual(entries.map(([key, value]) => [key, (value as { require?: { types: string }; types: string }).require?.types ?? (value as { types: string }).types]))
  })

  it('mockyard/vitest serves the bundled mocks in a real Vitest run of the consumer', () => {
    writeFileSync(
      join(project, 'mocks.test.js'),
      `import { expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
const mocks = setupMockServer('node_modules/mockyard/mocks/config.js')
it('answers routes and notifications', async () => {
  expect((await fetch('http://api.test/v1/users')).status).toBe(200)
  const list = await (await fetch('http://api.test/api/v1/notifications?limit=3')).json()
  expect(list.count).toBe(3)
  expect(mocks.requests()).toHaveLength(2)
})
`,
    )
    const result = spawnSync(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'mocks.test.js'], { cwd: project, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
    expect(result.stdout + result.stderr).toContain('1 passed')
    expect(result.status).toBe(0)
  })

  it('ships the JSON Schema of routes files as mockyard/schema/routes.json', () => {
    const script = `import('mockyard/schema/routes.json', { with: { type: 'json' } }).then((m) => console.log(m.default.title))`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' })
    expect(result.stdout.trim()).toBe('mockyard routes file')
  })

  it('mockyard check runs from the installed package, its validator and parsers included', () => {
    const mocks = join(project, 'node_modules', 'mockyard', 'mocks')
    const args = [join(project, 'node_modules', '.bin', 'mockyard'), 'check', '--config', join(mocks, 'config.js'), '--openapi', join(mocks, 'openapi.yaml')]
    const result = spawnSync(process.execPath, args, { cwd: project, encoding: 'utf8' })
    expect(result.stdout).toContain('[mockyard] check: no problems.')
    expect(result.status).toBe(0)
  })

  it('the bin runs', () => {
    const result = spawnSync(process.execPath, [join(project, 'node_modules', '.bin', 'mockyard'), '--version'], { cwd: project, encoding: 'utf8' })
    expect(result.stdout.trim()).toBe(pkg.version)
  })

  it('serves the bundled mocks from the installed package', async () => {
    const script = `import { startMockServer } from 'mockyard/node'
const s = await startMockServer({ routes: 'node_modules/mockyard/mocks/routes.json', data: 'node_modules/mockyard/mocks/data' })
const r = await fetch(s.url + '/v1/users'); console.log(r.status); await s.stop()`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' })
    expect(result.stderr).toBe('')
    expect(result.stdout.trim()).toBe('200')
  })

  it('serves the dashboard from the installed package (its static files are shipped)', () => {
    const script = `import { startMockServer } from 'mockyard/node'
const s = await startMockServer({ routes: 'node_modules/mockyard/mocks/routes.json', data: 'node_modules/mockyard/mocks/data' })
for (const path of ['/__mockyard/', '/__mockyard/dashboard/app.js', '/__mockyard/dashboard/app.css']) {
  const r = await fetch(s.url + path); console.log(r.status, (await r.text()).length > 100)
}
await s.stop()`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' })
    expect(result.stderr).toBe('')
    expect(result.stdout.trim().split('\n')).toEqual(['200 true', '200 true', '200 true'])
  })

  it('loads a dependency only when it is needed: mime with the first file that is not JSON, nothing for an unknown option', () => {
    // Every test file under Vitest imports mockyard again (bench/README.md, "Per-file cost under Vitest").
    const data = mkdtempSync(join(tmpdir(), 'mockyard-lazy-'))
    writeFileSync(join(data, 'a.json'), '{"a":1}')
    writeFileSync(join(data, 'b.pdf'), '%PDF-1.4')
    const script = `import { registerHooks } from 'node:module'
const asked = new Set()
registerHooks({ resolve(specifier, context, next) { asked.add(specifier); return next(specifier, context) } })
const lazy = ['mime', 'mime/lite', 'qs', 'ajv', 'yaml', 'import-meta-resolve']
const loaded = () => lazy.filter((name) => asked.has(name)).join(',') || '-'
const { startMockServer, validateOptions } = await import('mockyard/node')
const s = await startMockServer({ routes: { 'v1/a': { file: 'a.json' }, 'v1/b': { file: 'b.pdf' } }, data: ${JSON.stringify(data)} })
console.log('started', loaded())
let r = await fetch(s.url + '/v1/a'); await r.arrayBuffer(); console.log('json', r.headers.get('content-type'), loaded())
r = await fetch(s.url + '/v1/b'); await r.arrayBuffer(); console.log('pdf', r.headers.get('content-type'), loaded())
const check = validateOptions({ latancy: 1 }, 'options')
console.log('options', check.warnings[0].fix.includes('"latency"'), loaded())
await s.stop()`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' })
    rmSync(data, { recursive: true, force: true })
    expect(result.stderr).toBe('')
    expect(result.stdout.trim().split('\n')).toEqual([
      'started -',
      'json application/json; charset=utf-8 -',
      'pdf application/pdf mime/lite',
      'options true mime/lite',
    ])
  })

  it('has no install script (npm warns about those): nothing runs when a user installs it', () => {
    const installed = JSON.parse(readFileSync(join(project, 'node_modules', 'mockyard', 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(installed.scripts?.[hook]).toBeUndefined()
  })

  it('every source map names sources the package contains', () => {
    const root = join(project, 'node_modules', 'mockyard')
    const maps = filesUnder(join(root, 'dist')).filter((file) => file.endsWith('.js.map'))
    expect(maps.length).toBeGreaterThan(10)
    const missing: string[] = []
    for (const map of maps) {
      const { sources, sourceRoot = '' } = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[]; sourceRoot?: string }
      for (const source of sources) {
        const path = resolve(dirname(map), sourceRoot, source)
        if (!path.startsWith(root + '/') || !existsSync(path)) missing.push(`${map.slice(root.length)} -> ${source}`)
      }
    }
    expect(missing).toEqual([])
    // Sources, not tests or the repository's own tsconfigs.
    expect(filesUnder(join(root, 'src')).filter((file) => /\.test\.ts$|tsconfig\.json$/.test(file))).toEqual([])
  })

  it('its JavaScript holds no character past Latin-1: V8 keeps each module source one byte a character', () => {
    const root = join(project, 'node_modules', 'mockyard', 'dist')
    const scripts = filesUnder(root).filter((file) => /\.c?js$/.test(file))
    expect(scripts.length).toBeGreaterThan(10)
    // One character past Latin-1 (`…`, U+FFFD) makes the whole file's string two bytes a character.
    // (The build writes ASCII; a bundled package's licence comment may keep a Latin-1 name.)
    const wide = scripts.flatMap((file) => {
      const at = readFileSync(file, 'utf8').search(/[^\x00-\xff]/)
      return at === -1 ? [] : [`${file.slice(root.length)} at ${at}`]
    })
    expect(wide).toEqual([])
  })

  it('a stack trace through the package points at files it contains', () => {
    const script = `import { startMockServer } from 'mockyard/node'
try { await startMockServer({ routes: { 'v1/x': { latency: 'slow' } } }) } catch (error) { console.log(error.stack) }`
    const result = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' })
    const frames = [...result.stdout.matchAll(/\((\/[^()]*?node_modules\/mockyard\/[^():]+):\d+:\d+\)/g)].map((match) => match[1]!)
    expect(frames.length).toBeGreaterThan(0)
    expect(frames.some((file) => file.includes('/mockyard/src/'))).toBe(true) // mapped to the TypeScript source
    expect(frames.filter((file) => !existsSync(file))).toEqual([])
  })

  it("the types of every entry point compile in an app's browser-only tsconfig (types: vite/client, skipLibCheck: false)", async () => {
    const ts = (await import('typescript')).default
    const options: import('typescript').CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: ['vite/client'],
      strict: true,
      skipLibCheck: false,
      noEmit: true,
    }
    // Each entry point in a program of its own, so one entry's types never lend another what it
    // lacks. The programs run in this process one after another, each reusing the files the
    // previous one parsed (the DOM library, vite's types): one compiler start instead of ten.
    const host = ts.createCompilerHost(options)
    host.getCurrentDirectory = () => project // where `types: ['vite/client']` resolves from
    const failures: string[] = []
    let previous: import('typescript').Program | undefined
    for (const [key] of entries) {
      const file = join(project, `types-${key === '.' ? 'root' : key.slice(2).replace(/\//g, '-')}.ts`)
      writeFileSync(file, `import * as entry from '${'mockyard' + (key === '.' ? '' : key.slice(1))}'\nexport const use = entry\n`)
      const program = ts.createProgram({ rootNames: [file], options, host, oldProgram: previous })
      const diagnostics = ts.getPreEmitDiagnostics(program)
      if (diagnostics.length > 0) {
        failures.push(`${key}:\n${ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (name) => name, getCurrentDirectory: () => project, getNewLine: () => '\n' })}`)
      }
      previous = program
    }
    expect(failures).toEqual([])
  }, 240_000)
})
