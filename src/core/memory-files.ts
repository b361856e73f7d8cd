import type { FileSource } from './types.js'

const textEncoder = new TextEncoder()

/**
 * A `FileSource` over data held in memory: strings are stored as UTF-8. Handy for unit tests
 * and for route tables shipped to the browser with their (small) files inlined.
 *
 * @example
 * const files = memoryFiles({ 'users.json': '[{"id":1}]' })
 */
export function memoryFiles(files: Record<string, string | Uint8Array>, label = 'memory'): FileSource {
  const bytes = new Map<string, Uint8Array>()
  for (const [name, content] of Object.entries(files)) {
    bytes.set(normalize(name), typeof content === 'string' ? textEncoder.encode(content) : content)
  }
  return {
    label,
    async read(name) {
      return bytes.get(normalize(name))
    },
    readCached(name) {
      return bytes.get(normalize(name))
    },
  }
}

function normalize(name: string): string {
  return name.replace(/\\/g, '/').replace(/^(\.\/)+/, '')
}
