/**
 * The bundle in dist/ (rolldown.config.mjs; `npm run build` first): what each entry point loads,
 * read from the import statements of the built files.
 */
import { readFileSync, globSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const dist = fileURLToPath(new URL('../../dist/', import.meta.url))
const source = (file: string) => readFileSync(join(dist, file), 'utf8')
const STATIC = /^(?:import|export)\b[^;]*?["']([^"']+)["'];?$/gm

/** The files of dist/ an entry point loads before it runs (static imports, transitively). */
function closure(entry: string): string[] {
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    for (const [, specifier] of source(file).matchAll(STATIC)) if (specifier!.startsWith('.')) visit(join(dirname(file), specifier!))
  }
  visit(entry)
  return [...seen]
}

/** The packages and builtins those files import statically. */
const externals = (files: string[]) => [...new Set(files.flatMap((file) => [...source(file).matchAll(STATIC)].map((match) => match[1]!).filter((s) => !s.startsWith('.'))))].sort()

describe('the bundle', () => {
  it('mockyard/vitest loads three files of the package: its entry, the core chunk and the node chunk', () => {
    // Each module file costs every Vitest test file about 2 ms (bench/README.md, "Per-file cost under Vitest").
    const files = closure('vitest/index.js')
    expect(files).toHaveLength(3)
    expect(files.slice(1).map((file) => file.replace(/-[\w-]+\.js$/, ''))).toEqual(expect.arrayContaining(['chunks/core', 'chunks/node']))
    // Of the packages, only vitest itself: mime, qs, msw, the interceptors... load on first use.
    expect(externals(files).filter((name) => !name.startsWith('node:'))).toEqual(['vitest'])
  })

  it('the entry points for the browser load no Node builtin', () => {
    for (const entry of ['browser/index.js', 'core/index.js', 'msw/index.js', 'notifications/index.js', 'notifications/fixtures.js']) {
      expect({ entry, builtins: externals(closure(entry)).filter((name) => name.startsWith('node:')) }).toEqual({ entry, builtins: [] })
    }
  })

  it('every emitted file sits two folders deep, where ../../ is the package root', () => {
    const files = globSync('**/*.js', { cwd: dist }) as string[]
    expect(files.length).toBeGreaterThan(10)
    expect(files.filter((file) => file.split(/[\\/]/).length !== 2)).toEqual([])
  })
})

describe('what mockyard check costs the other surfaces', () => {
  const heavy = /^(ajv|ajv-formats|yaml|@apidevtools\/json-schema-ref-parser)(\/|$)/
  const entries = () => (globSync('*/*.js', { cwd: dist }) as string[]).filter((file) => !file.startsWith('chunks/'))

  it('nothing: no entry point imports its validator and parsers before the check runs, and main.js loads the check on demand', () => {
    expect(entries()).toContain('cli/main.js')
    expect(entries()).toContain('vitest/index.js')
    const offenders = entries().flatMap((entry) => closure(entry).filter((file) => externals([file]).some((name) => heavy.test(name))).map((file) => `${entry} -> ${file}`))
    expect(offenders).toEqual([])
    // The check's own modules are reached only through import() from main.js.
    const checkChunk = [...source('cli/main.js').matchAll(/import\("(\.\.\/chunks\/check-[^"]+)"\)/g)].map((match) => match[1])
    expect(checkChunk).toHaveLength(1)
    expect(closure('cli/main.js')).not.toContain(join('cli', checkChunk[0]!))
  })

  it('the check itself does reach them (the test above looks in the right place)', () => {
    // The check's thread (dist/check/openapi-worker.js) loads them, on demand too.
    const all = globSync('*/*.js', { cwd: dist }) as string[]
    expect(all.some((file) => /import\("(ajv|ajv-formats|@apidevtools\/json-schema-ref-parser)"\)/.test(source(file)))).toBe(true)
  })
})
