import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/**
 * mockyard's own code, as stack frames name it: this file sits two folders deep in the package
 * (`src/node/` in the sources, `dist/<entry>/` or `dist/chunks/` when bundled), so `../../` is the
 * package's root wherever it runs from.
 */
// A path, not `new URL('…', import.meta.url)`, which Vite rewrites under happy-dom or jsdom (load-config.ts).
const root = join(dirname(fileURLToPath(import.meta.url)), '../../')
const ownPrefixes = [`${root}src/`, `${root}dist/`].flatMap((prefix) => [prefix, pathToFileURL(prefix).href])
/** The interception libraries a request passes through before it fails: their frames say nothing to a user either. */
const LIBRARY_FRAME = /[\\/]node_modules[\\/](?:@mswjs[\\/]interceptors|@open-draft)[\\/]/

/**
 * Drops the stack frames of mockyard's own files and of the interception libraries from an error
 * it throws at a test (an unmatched request, a failed test): the test runner then points at the
 * test's own line, or at none, instead of printing mockyard's source (docs/behaviour.md, "Test
 * runners").
 *
 * @example
 * throw withoutOwnFrames(new TypeError(explanation))
 */
export function withoutOwnFrames<E extends Error>(error: E): E {
  const stack = error.stack
  if (typeof stack !== 'string') return error
  const lines = stack.split('\n')
  const firstFrame = lines.findIndex((line) => /^\s+at /.test(line))
  if (firstFrame < 0) return error
  const kept = lines.slice(firstFrame).filter((line) => !ownPrefixes.some((prefix) => line.includes(prefix)) && !LIBRARY_FRAME.test(line))
  error.stack = [...lines.slice(0, firstFrame), ...kept].join('\n')
  return error
}
