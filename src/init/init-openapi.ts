/**
 * `mockyard init --openapi`: reads an OpenAPI document as `mockyard check` reads it (JSON or YAML,
 * `$ref`s across files, no network) and writes the mocks it documents into `<out>/routes.json`
 * and `<out>/data/` (docs/behaviour.md, "OpenAPI: mocks from a contract").
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { loadOpenApi } from '../check/check-openapi.js'
import { DocumentError } from '../check/read-document.js'
import { displayPath } from '../check/problem.js'
import { writeAtomic } from '../record/writer.js'
import { generateMocks } from './routes-from-openapi.js'

export interface InitOptions {
  /** The OpenAPI document (JSON or YAML). */
  openapi: string
  /** Where routes.json and data/ go (default `mocks`). */
  out?: string
  /** Overwrite an existing routes.json (and data files of the same names). */
  force?: boolean
  /** Relative paths resolve from, and messages show paths relative to, this folder (default: the working directory). */
  cwd?: string
}

export interface InitResult {
  routesFile: string
  dataFolder: string
  /** Operations written, routes, entries and data files. */
  operations: number
  routes: number
  entries: number
  files: number
  /** What was not written, each with why. */
  skipped: string[]
}

/** Why init wrote nothing: what is wrong and what to do, and the exit status (1: the input, 2: usage). */
export class InitError extends Error {
  override name = 'InitError'
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message)
  }
}

/**
 * Writes the mocks of an OpenAPI document. Refuses, writing nothing, when `<out>/routes.json`
 * exists or a data file of the same name holds other bytes, unless `force`; each file is written
 * atomically (a temporary file, then a rename), data files first and routes.json last, so the
 * routes never name a file that is not there.
 *
 * @example
 * const result = await initFromOpenApi({ openapi: 'openapi.yaml', out: 'mocks' })
 * console.log(`${result.routes} routes written to ${result.routesFile}`)
 */
export async function initFromOpenApi(options: InitOptions): Promise<InitResult> {
  const cwd = options.cwd ?? process.cwd()
  const show = (file: string) => displayPath(file, cwd)
  const path = resolve(cwd, options.openapi)
  const out = resolve(cwd, options.out ?? 'mocks')
  const routesFile = join(out, 'routes.json')
  const dataFolder = join(out, 'data')
  if (!options.force && existsSync(routesFile)) {
    throw new InitError(`${show(routesFile)} exists, and init writes a new one rather than merging into it`, `Add --force to overwrite it, or write elsewhere with --out <folder>.`)
  }
  if (!existsSync(path)) throw new InitError(`the OpenAPI document ${show(path)} does not exist`, 'Check the path given to --openapi.')

  let api
  try {
    api = await loadOpenApi(path, show, { reader: 'mockyard init' })
  } catch (error) {
    const fix = error instanceof DocumentError ? (error.fix ?? 'Give an OpenAPI 3.0 or 3.1 document (JSON or YAML).') : 'Give an OpenAPI 3.0 or 3.1 document (JSON or YAML).'
    // The place, unless the message already names it (a `$ref` problem says where it is written).
    const place = error instanceof DocumentError && error.place ? `${show(error.place.file)}#${error.place.pointer}` : undefined
    const where = place !== undefined && !(error as Error).message.includes(place) ? ` (${place})` : ''
    throw new InitError(`${show(path)} cannot be used: ${(error as Error).message.replace(/\.$/, '')}${where}`, fix)
  }
  const validates = (schema: Record<string, unknown>, value: unknown) => {
    const pointer = api.pointerOf(schema)
    if (pointer === undefined) return undefined
    try {
      return api.validatorAt(pointer)(value)
    } catch {
      return undefined
    }
  }
  // A schema's own name, where the document declares it: under components/schemas, at the top of
  // another file (`schemas.yaml#/Cat`), or as a whole file (`Cat.yaml`).
  const nameOf = (schema: Record<string, unknown>) => {
    const pointer = api.pointerOf(schema)
    if (pointer === undefined || pointer === '') return undefined
    const where = api.locate(pointer)
    const whole = /([^/\\]+)\.(json|ya?ml)#\/?$/i.exec(where)
    if (whole && !where.startsWith(`${api.label}#`)) return whole[1]
    const written = /#(?:\/components\/schemas)?\/([^/]+)$/.exec(where)
    return written ? written[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : undefined
  }
  const paths = api.doc.paths
  if (typeof paths !== 'object' || paths === null || Object.keys(paths).length === 0) {
    // An OpenAPI 3.1 document may hold only webhooks or components: nothing a mock answers.
    const webhooks = typeof api.doc.webhooks === 'object' && api.doc.webhooks !== null ? ': its webhooks are requests the API sends, not answers, and mockyard does not mock them' : ''
    throw new InitError(`${show(path)} documents no paths, so there is nothing to mock${webhooks}`, 'Give the document of the API whose answers your tests need (one with paths).')
  }
  const mocks = generateMocks({ doc: api.doc, validates, nameOf })

  if (!options.force) {
    const taken = [...mocks.files].filter(([name, text]) => existsSync(join(dataFolder, name)) && readFileSync(join(dataFolder, name), 'utf8') !== text).map(([name]) => name)
    if (taken.length > 0) {
      const listed = taken.slice(0, 5).join(', ') + (taken.length > 5 ? `, and ${taken.length - 5} more` : '')
      throw new InitError(`${show(dataFolder)} already holds data files of the names init writes, with other content (${listed})`, 'Add --force to overwrite them, or write elsewhere with --out <folder>.')
    }
  }
  let writing = dataFolder
  try {
    mkdirSync(dataFolder, { recursive: true })
    for (const [name, text] of mocks.files) writeAtomic((writing = join(dataFolder, name)), text)
    writeAtomic((writing = routesFile), JSON.stringify(mocks.routes, null, 2) + '\n')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new InitError(`${show(writing)} cannot be written (${code})`, 'Write elsewhere with --out <folder>, a folder you can write to.')
  }

  let entries = 0
  for (const route of Object.values(mocks.routes)) {
    for (const value of Object.values(route)) entries += Array.isArray(value) ? value.length : 1
  }
  return { routesFile, dataFolder, operations: mocks.operations, routes: Object.keys(mocks.routes).length, entries, files: mocks.files.size, skipped: mocks.skipped }
}
