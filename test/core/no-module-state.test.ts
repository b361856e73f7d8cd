import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const core = fileURLToPath(new URL('../../src/core/', import.meta.url))

/**
 * Top-level declarations that hold state across engines: a `let` or `var`, or a Map, WeakMap or
 * array built at module level (a constant Set of names, never changed, is not state).
 */
function moduleState(source: string): string[] {
  return source.split('\n').filter((line) => /^(export )?(let|var) /.test(line) || /^(export )?const \w+(: [^=]+)? = (new (Map|WeakMap)\b|\[\])/.test(line))
}

describe('src/core', () => {
  it('keeps no module state: caches, loaded parsers and buffers belong to an engine or a call', () => {
    const found = readdirSync(core)
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) => moduleState(readFileSync(core + name, 'utf8')).map((line) => `${name}: ${line}`))
    expect(found).toEqual([])
  })
})
