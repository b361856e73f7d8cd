/**
 * `buildInternals()`: bundles bench/internals.ts (internal modules the package does not export)
 * with the build's own settings (rolldown.config.mjs) into one file,
 * `.tmp/bench-internals/internals-<pid>.js`, and returns its file URL. One file per process, so
 * parallel runs do not overwrite each other's; two folders deep, as in dist/, so
 * `import.meta.url` finds the package's files.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { rolldown } from 'rolldown'
import config from '../rolldown.config.mjs'

let built

export function buildInternals() {
  built ??= (async () => {
    const dir = fileURLToPath(new URL('../.tmp/bench-internals/', import.meta.url))
    const bundle = await rolldown({ ...config, input: fileURLToPath(new URL('./internals.ts', import.meta.url)), plugins: [] })
    const { output } = await bundle.generate({ format: 'esm', codeSplitting: false })
    await bundle.close()
    if (output.length !== 1) throw new Error(`expected one file from bench/internals.ts, got ${output.map((file) => file.fileName).join(', ')}`)
    const file = `${dir}internals-${process.pid}.js`
    mkdirSync(dir, { recursive: true })
    writeFileSync(file, output[0].code)
    return pathToFileURL(file).href
  })()
  return built
}
