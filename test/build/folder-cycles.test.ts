/**
 * The folders of src/ import one another in one direction only: a folder that imports another is
 * never imported back, however many folders lie between. A cycle makes two folders one room
 * (neither can be read, tested or moved without the other), so this test names the imports that
 * close it.
 */
import { globSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const src = fileURLToPath(new URL('../../src/', import.meta.url))

/** Static, type-only, re-exported and dynamic imports with a relative specifier. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm

/** The folder of src/ a file belongs to: its first segment (src/node/interception/x.ts is node's). */
const folderOf = (file: string) => file.split('/')[0]!

/** Folder -> folder edges, each with the first import that makes it (`file: specifier`). */
function folderEdges(files: Record<string, string>): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>()
  for (const [file, text] of Object.entries(files)) {
    const from = folderOf(file)
    for (const [, specifier] of text.matchAll(IMPORT)) {
      const target = normalize(join(dirname(file), specifier!))
      if (target.startsWith('..')) continue
      const to = folderOf(target)
      if (to === from) continue
      const out = edges.get(from) ?? new Map<string, string>()
      if (!out.has(to)) out.set(to, `${file}: ${specifier}`)
      edges.set(from, out)
    }
  }
  return edges
}

/** Every cycle of folders, each as the imports that close it, found by a depth-first walk. */
function folderCycles(edges: Map<string, Map<string, string>>): string[][] {
  const cycles: string[][] = []
  const seen = new Set<string>()
  const key = (path: string[]) => [...path].sort().join(' ')
  const visit = (folder: string, path: string[]) => {
    for (const to of edges.get(folder)?.keys() ?? []) {
      const at = path.indexOf(to)
      if (at >= 0) {
        const cycle = [...path.slice(at), to]
        if (!seen.has(key(cycle.slice(1)))) {
          seen.add(key(cycle.slice(1)))
          cycles.push(cycle.slice(0, -1).map((f, i) => `${f} -> ${cycle[i + 1]} (${edges.get(f)!.get(cycle[i + 1]!)})`))
        }
        continue
      }
      if (path.length < 20) visit(to, [...path, to])
    }
  }
  for (const folder of edges.keys()) visit(folder, [folder])
  return cycles
}

function sourceFiles(): Record<string, string> {
  const files: Record<string, string> = {}
  for (const file of globSync('**/*.ts', { cwd: src })) {
    if (file.endsWith('.test.ts')) continue
    files[relative(src, join(src, file)).split('\\').join('/')] = readFileSync(join(src, file), 'utf8')
  }
  return files
}

describe('the folders of src/', () => {
  it('import one another without a cycle', () => {
    const cycles = folderCycles(folderEdges(sourceFiles()))
    expect(cycles, `folder cycles:\n${cycles.map((c) => c.join('\n  ')).join('\n')}`).toEqual([])
  })

  it('a cycle through a third folder, a type import or a dynamic import is found and named', () => {
    const edges = folderEdges({
      'a/one.ts': "import type { B } from '../b/two.js'\n",
      'b/two.ts': "export { C } from '../c/three.js'\n",
      'c/three.ts': "const a = await import('../a/one.js')\n",
      'd/four.ts': "import '../a/one.js'\n",
    })
    expect(folderCycles(edges)).toEqual([
      ['a -> b (a/one.ts: ../b/two.js)', 'b -> c (b/two.ts: ../c/three.js)', 'c -> a (c/three.ts: ../a/one.js)'],
    ])
  })
})
