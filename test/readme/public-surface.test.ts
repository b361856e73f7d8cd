/**
 * The public surface is what the README and the guides document: every name an example of theirs
 * imports exists in its entry point, and `mockyard` and `mockyard/node` export those names and no
 * internals.
 */
import { describe, expect, it } from 'vitest'
import { readDoc, shippedDocs } from './docs.js'

const README = shippedDocs().map((doc) => readDoc(doc)).join('\n')

/** `[entry, name]` for each value a code block of the README or a guide imports from a mockyard entry point. */
function readmeImports(): Array<[string, string]> {
  const found: Array<[string, string]> = []
  for (const match of README.matchAll(/import\s+(?:(\w+)\s*,?\s*)?(?:\{([^}]*)\})?\s*from\s+'(mockyard(?:\/[\w/]+)?)'/g)) {
    const [, defaultName, names = '', entry] = match
    if (defaultName) found.push([entry!, 'default'])
    for (const raw of names.split(',')) {
      const name = raw.trim()
      if (name !== '' && !name.startsWith('type ')) found.push([entry!, name.split(/\s+as\s+/)[0]!])
    }
  }
  return found
}

const load: Record<string, () => Promise<Record<string, unknown>>> = {
  mockyard: () => import('mockyard'),
  'mockyard/node': () => import('mockyard/node'),
  'mockyard/msw': () => import('mockyard/msw'),
  'mockyard/vitest': () => import('mockyard/vitest'),
  'mockyard/jest': () => import('mockyard/jest'),
  'mockyard/node-test': () => import('mockyard/node-test'),
  'mockyard/playwright': () => import('mockyard/playwright'),
  'mockyard/notifications': () => import('mockyard/notifications'),
  'mockyard/notifications/fixtures': () => import('mockyard/notifications/fixtures'),
  'mockyard/vite': () => import('mockyard/vite'),
  'mockyard/browser': () => import('mockyard/browser'),
}

describe('the public surface', () => {
  it('has every name the README and the guides import', async () => {
    const imports = readmeImports()
    expect(imports.length).toBeGreaterThan(20)
    const missing: string[] = []
    for (const [entry, name] of imports) {
      expect(Object.keys(load)).toContain(entry)
      if (!(name in (await load[entry]!()))) missing.push(`${name} from ${entry}`)
    }
    expect(missing).toEqual([])
  })

  it('mockyard exports the isomorphic core the README documents, not its internals', async () => {
    expect(Object.keys(await import('mockyard')).sort()).toEqual(['ConfigError', 'compileRoutes', 'createEngine', 'fromFetchRequest', 'memoryFiles', 'toFetchResponse', 'validateRoutes'])
  })

  it('mockyard/node exports the surfaces, the options check and the recorder, not the loader', async () => {
    expect(Object.keys(await import('mockyard/node')).sort()).toEqual([
      'ConfigError',
      'MockServer',
      'createHandlers',
      'createMiddleware',
      'createRecordWriter',
      'importHar',
      'propagateSessions',
      'startMockServer',
      'startRecorder',
      'validateOptions',
    ])
  })
})
