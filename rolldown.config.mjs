/**
 * The JavaScript in `dist/`: every entry point of package.json (`exports` and `bin`) bundled
 * from `src/` by rolldown, with the code they share split into `dist/chunks/`. `tsc` writes the
 * declarations beside them (`npm run build` runs both).
 *
 * Why bundle: Vitest runs each test file in a fresh process, so each file pays for reading,
 * compiling and linking every module `mockyard/vitest` imports. As separate tsc modules that was
 * ~40 modules per file; bundled it is a handful (figures in bench/README.md, "Per-file cost
 * under Vitest"). Packages (`msw`, `mime`, ...) and Node's builtins stay external: they are
 * dependencies, resolved from the user's install.
 *
 * Every emitted file sits two folders deep (`dist/<entry>/x.js`, `dist/chunks/x.js`), as the
 * sources do (`src/<layer>/x.ts`): the code finds the package's own files (`mocks/`, `static/`,
 * `package.json`) at `new URL('../../…', import.meta.url)`, from the sources in tests and from
 * the bundle when installed. The build fails if a file would land elsewhere.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'rolldown'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'))
// `cli/main` is the CLI proper: the bin (`cli/bin`) loads it after checking the Node version,
// and tests and scripts run it directly.
const targets = [...Object.values(pkg.exports).map((target) => target.default), ...Object.values(pkg.bin), './dist/cli/main.js']
const input = Object.fromEntries(
  targets
    .filter((target) => typeof target === 'string' && target.startsWith('./dist/') && target.endsWith('.js'))
    .map((target) => {
      const name = target.slice('./dist/'.length, -'.js'.length)
      return [name, here(`./src/${name}.ts`)]
    }),
)
// Not a package entry point: the thread `mockyard check --openapi` runs in (src/check/check-in-worker.ts).
input['check/openapi-worker'] = here('./src/check/openapi-worker.ts')

/** Filled when the module graph is known (the plugin below), read when chunks are made. */
let vitestPath = new Set()
const inVitestPath = (id) => vitestPath.has(id)

export default defineConfig({
  input,
  platform: 'node',
  // Bare specifiers are packages or builtins: the user's install provides them.
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(id),
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  transform: { target: 'es2023' },
  output: {
    dir: here('./dist'),
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    sourcemap: true,
    // What `mockyard/vitest` imports sits in two chunks: its core modules (isomorphic, shared with
    // the browser entry) and the rest (Node only). Under Vitest each module file a test file
    // loads costs it about 2 ms more, so fewer, larger files are cheaper than the seven chunks
    // rolldown makes by default (bench/README.md, "Per-file cost under Vitest").
    codeSplitting: {
      groups: [
        { name: 'core', test: (id) => inVitestPath(id) && /[\\/]src[\\/](core|harness)[\\/]/.test(id), priority: 2 },
        { name: 'node', test: (id) => inVitestPath(id), priority: 1 },
      ],
    },
  },
  plugins: [
    {
      name: 'mockyard:vitest-path',
      buildEnd() {
        // The modules `mockyard/vitest` imports statically (its entry module aside).
        const entry = input['vitest/index']
        const seen = new Set()
        const visit = (id) => {
          if (seen.has(id)) return
          seen.add(id)
          for (const imported of this.getModuleInfo(id)?.importedIds ?? []) visit(imported)
        }
        visit(entry)
        seen.delete(entry)
        vitestPath = seen
      },
    },
    {
      name: 'mockyard:two-folders-deep',
      generateBundle(_options, bundle) {
        const astray = Object.keys(bundle).filter((file) => file.endsWith('.js') && file.split('/').length !== 2)
        if (astray.length > 0) this.error(`these files would not sit two folders deep in dist/, where import.meta.url finds ../../package.json: ${astray.join(', ')}`)
      },
    },
  ],
})
