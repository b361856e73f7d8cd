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
// The `browser` condition of `mockyard/vitest`: Vitest's browser mode (src/vitest/browser.ts).
input['vitest/browser'] = here('./src/vitest/browser.ts')

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
    // JSDoc stays in the declarations (tsc) and the source maps; in the JavaScript it is only
    // more to read for every test file that imports mockyard (bench/README.md, "Per-file cost
    // under Vitest": 259 KB to 199 KB, no difference measurable there).
    comments: { legal: true, annotation: true, jsdoc: false },
    // ASCII only (`…` written `\u2026`): V8 keeps each module's source as a string, and one
    // character outside Latin-1 makes the whole chunk's string two bytes a character. Under
    // Vitest every test file's process holds that source: 251 KB instead of 502 KB
    // (bench/README.md, "Per-file cost under Vitest").
    charset: 'ascii',
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

/**
 * `mockyard/jest` for `require()`: Jest projects are mostly CommonJS, and Jest's own module
 * system (without `--experimental-vm-modules`) can neither `require()` an ES module nor run an
 * `import()`. So `dist/jest/index.cjs` is one CommonJS file holding mockyard and the packages it
 * loads (the interceptors, mime, qs...; resolved for Node, so Jest's jsdom environment, which asks
 * for `browser` builds, gets the same code), its `import()`s inlined. Only msw stays outside: the
 * handlers a test passes to `mocks.use()` come from the user's own msw, loaded only then (msw
 * and its dependencies are ES modules: Jest's `require()` loads them under its ES module support).
 */
const COMMONJS_LOADS = [
  // The interceptors of http and XMLHttpRequest, loaded on first use: bundled, from Node's build.
  [/const require = createRequire\(import\.meta\.url\)\n/g, '\n', /[\\/]src[\\/]node[\\/]interception[\\/](index|client-request)\.ts$/],
  // msw, for the handlers of mocks.use(): the user's own.
  [/await import\('msw'\)/g, "require('msw')", /[\\/]src[\\/]harness[\\/]pipeline\.ts$/],
  // A `.js` config file: a CommonJS project's is CommonJS.
  [/await import\(pathToFileURL\(path\)\.href \+ [^\n]*\)\)\)/, 'require(path))', /[\\/]src[\\/]config[\\/]load-config\.ts$/],
  // ...so its failure to load an ES module config is told as such.
  [/const CONFIG_BY_REQUIRE = false/, 'const CONFIG_BY_REQUIRE = true', /[\\/]src[\\/]config[\\/]load-config\.ts$/],
]

export const jestCommonJs = defineConfig({
  input: { 'jest/index': here('./src/jest/index.ts') },
  platform: 'node',
  external: (id) => id === 'msw' || id.startsWith('msw/') || id.startsWith('node:'),
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] }, conditionNames: ['node', 'require', 'default'] },
  transform: { target: 'es2023' },
  output: {
    dir: here('./dist'),
    format: 'cjs',
    entryFileNames: '[name].cjs',
    codeSplitting: false,
    // As the ES module build (above): no JSDoc (the packages' own included), ASCII only.
    comments: { legal: true, annotation: true, jsdoc: false },
    charset: 'ascii',
    // A map would name the bundled packages' sources, which the package does not ship.
    sourcemap: false,
  },
  plugins: [
    {
      // What loads a module at run time is made a `require()`: Jest runs that in its own module
      // system, where `import()` throws without --experimental-vm-modules.
      name: 'mockyard:commonjs-loads',
      transform(code, id) {
        let result = code
        for (const [pattern, replacement, files] of COMMONJS_LOADS) {
          if (!files.test(id)) continue
          const next = result.replace(pattern, replacement)
          if (next === result) this.error(`${id}: the CommonJS build expected ${pattern} here (rolldown.config.mjs, COMMONJS_LOADS); update the pattern`)
          result = next
        }
        // Each replacement keeps its line: the mappings stand as they are.
        return result === code ? null : { code: result, map: null }
      },
    },
  ],
})
