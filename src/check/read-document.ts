/**
 * How `mockyard check --openapi` reads a document and the files its `$ref`s name
 * (docs/behaviour.md, "Checking mocks: `mockyard check`", "Hostile documents"): only regular
 * files, within a size limit, never the network, and YAML without alias bombs. The options
 * returned here replace the `$ref` resolver's own resolvers and parsers.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The most a document may weigh, the files its `$ref`s name included: the largest public OpenAPI
 * documents (GitHub's REST API, about 12 MB of JSON; Stripe's, about 7 MB) with a margin.
 */
export const DOCUMENT_LIMIT = 32 * 1024 * 1024
const LIMIT_TEXT = '32 MB'

/** The extensions a file named by a `$ref` may have: anything else is not a schema. */
const SCHEMA_EXTENSIONS = new Set(['.json', '.yaml', '.yml'])

/** A document that cannot be used, with a message for the report. */
export class DocumentError extends Error {
  override name = 'DocumentError'
  /** Where the problem is written, when that is a place inside one of the files. */
  readonly place: { file: string; pointer: string } | undefined
  /** What to do about it, when more precise than "give a usable document". */
  readonly fix: string | undefined

  constructor(message: string, details: { place?: { file: string; pointer: string }; fix?: string } = {}) {
    super(message)
    this.place = details.place
    this.fix = details.fix
  }
}

const FIX_REMOTE = 'Save the file beside the document and name it by its path in the $ref.'
const FIX_NOT_SCHEMA = 'Point the $ref at a schema (an object) in a .json, .yaml or .yml file.'
const FIX_NOT_FILE = 'Name a regular file (not a folder, a pipe or a device).'
const FIX_SIZE = 'Give a document of at most 32 MB, the files its $refs name included.'

/** What a path is when it is not a regular file, in words. */
function describeNonFile(stats: import('node:fs').Stats): string {
  if (stats.isDirectory()) return 'a folder'
  if (stats.isFIFO()) return 'a named pipe'
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device'
  if (stats.isSocket()) return 'a socket'
  return 'not a regular file'
}

/**
 * Reads a regular file of at most `limit` bytes. Never opens a folder, pipe or device for
 * reading (the path is checked before, and the opened file again: O_NONBLOCK keeps the open of a
 * pipe swapped in meanwhile from waiting for a writer), and never reads past `limit` + 1 bytes,
 * so a file that grows while read is refused too.
 */
export function readRegularFile(path: string, limit: number, name: string): Buffer {
  const stats = statSync(path)
  if (!stats.isFile()) throw new DocumentError(`${name} is ${describeNonFile(stats)}, not a file`, { fix: FIX_NOT_FILE })
  if (stats.size > limit) throw new DocumentError(`${name} is larger than ${LIMIT_TEXT} (${(stats.size / 1024 / 1024).toFixed(0)} MB)`, { fix: FIX_SIZE })
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  try {
    const opened = fstatSync(fd)
    if (!opened.isFile()) throw new DocumentError(`${name} is ${describeNonFile(opened)}, not a file`, { fix: FIX_NOT_FILE })
    const buffer = Buffer.alloc(Math.min(opened.size, limit) + 1)
    let length = 0
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null)
      if (read === 0) break
      length += read
      if (length > limit) throw new DocumentError(`${name} is larger than ${LIMIT_TEXT}`, { fix: FIX_SIZE })
      if (length === buffer.length) break
    }
    return buffer.subarray(0, length)
  } finally {
    closeSync(fd)
  }
}

interface FileInfo {
  url: string
  reference?: string
  baseUrl?: string
}

/** The file path of a resolved `$ref` URL (a path, or a `file:` URL), or undefined for any other scheme. */
function filePathOf(url: string): string | undefined {
  if (/^file:/i.test(url)) return fileURLToPath(url.split('#')[0]!)
  // A Windows drive letter is a path, not a scheme.
  if (/^[a-z][a-z0-9+.-]+:/i.test(url) && !/^[a-z]:[\\/]/i.test(url)) return undefined
  return decodeURIComponent(url.split('#')[0]!)
}

/**
 * The `$ref` resolver's options for one load of the document at `root`: one resolver that reads
 * regular files only (`.json`, `.yaml` or `.yml` when a `$ref` names them), all of them together
 * within DOCUMENT_LIMIT, and refuses every other URL without touching the network (the built-in
 * HTTP resolver is off); JSON and YAML parsers only (text and binary files are not schemas):
 * JSON errors without the text around them (V8 quotes it), YAML read by `yaml`, whose alias
 * limit stops alias bombs. `reader` names what reads the document in the refusal of a remote
 * `$ref` (`mockyard check`, `mockyard init`, `the validate option`).
 */
export function documentOptions(root: string, display: (file: string) => string, reader = 'mockyard check') {
  let total = 0
  // The resolver wraps what a plugin throws in its own words ("Error reading file"): the first
  // refusal is kept here, and loadOpenApi reports it instead.
  let refusal: DocumentError | undefined
  const refuse: (message: string, fix?: string) => never = (message, fix) => {
    refusal ??= new DocumentError(message, { fix })
    throw refusal
  }
  const where = (file: FileInfo) => {
    const base = file.baseUrl ? filePathOf(file.baseUrl) : undefined
    return `the $ref "${file.reference ?? file.url}"${base ? ` in ${display(base)}` : ''}`
  }
  const resolver = {
    order: 1,
    canRead: true,
    read(file: FileInfo): Buffer {
      const path = filePathOf(file.url)
      const isRoot = path === root
      if (path === undefined) {
        refuse(`${where(file)} is remote (${file.url.split('#')[0]}); ${reader} makes no network access, so it was not fetched`, FIX_REMOTE)
      }
      if (!isRoot && !SCHEMA_EXTENSIONS.has(extname(path).toLowerCase())) {
        refuse(`${where(file)} names ${display(path)}, which is not a schema: $refs name .json, .yaml or .yml files`, FIX_NOT_SCHEMA)
      }
      const name = isRoot ? display(path) : `${display(path)} (${where(file)})`
      try {
        const data = readRegularFile(path, DOCUMENT_LIMIT, name)
        total += data.length
        if (total > DOCUMENT_LIMIT) refuse(`the document and the files its $refs name are larger than ${LIMIT_TEXT} together`, FIX_SIZE)
        return data
      } catch (error) {
        if (error === refusal) throw error
        if (error instanceof DocumentError) refuse(error.message, error.fix)
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
        refuse(isRoot ? `it cannot be read (${code})` : `${where(file)} names ${display(path)}, which cannot be read (${code})`)
      }
    },
  }
  /** A file in a message: "it" for the document itself (the message starts with its name), else its name. */
  const nameOf = (url: string) => {
    const path = filePathOf(url)
    return path === root ? 'it' : path ? display(path) : url
  }
  const FIX_EMPTY = 'Give an OpenAPI 3.0 or 3.1 document (JSON or YAML), or point the $ref at a file that holds a schema.'
  const isJsonFile = (url: string) => extname(url.split('#')[0]!).toLowerCase() === '.json'
  const yamlParser = {
    order: 200,
    allowEmpty: true,
    // A `.json` file is JSON only: read as YAML, a broken one would be reported in YAML's words
    // and a trailing comma accepted (the JSON parser's error is the report).
    canParse: (file: { url: string }) => !isJsonFile(file.url),
    async parse(file: { url: string; data: Buffer | string }): Promise<unknown> {
      const { parse, YAMLParseError } = await import('yaml')
      const text = typeof file.data === 'string' ? file.data : file.data.toString('utf8')
      if (text.trim() === '') refuse(`${nameOf(file.url)} is empty`, FIX_EMPTY)
      try {
        // maxAliasCount is yaml's default, written out: it is what stops an alias bomb.
        return parse(text, { maxAliasCount: 100, merge: true, prettyErrors: false })
      } catch (error) {
        if (!(error instanceof YAMLParseError)) throw error
        const at = error.linePos?.[0]
        refuse(`${nameOf(file.url)} is not valid YAML${at ? ` (line ${at.line}, column ${at.col})` : ''}: ${error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '').replace(/\.$/, '')}`, 'Fix the file at that place.')
      }
    },
  }
  const jsonParser = {
    order: 100,
    allowEmpty: true,
    canParse: (file: { url: string }) => isJsonFile(file.url),
    parse(file: { url: string; data: Buffer | string }): unknown {
      let text = typeof file.data === 'string' ? file.data : file.data.toString('utf8')
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
      if (text.trim() === '') refuse(`${nameOf(file.url)} is empty`, FIX_EMPTY)
      try {
        return JSON.parse(text)
      } catch (error) {
        // V8 quotes the text around the error: a file named by mistake is not shown in the report.
        const at = /\(line (\d+) column (\d+)\)/.exec((error as Error).message)
        const position = /at position (\d+)/.exec((error as Error).message)
        const place = at ? ` (line ${at[1]}, column ${at[2]})` : position ? ` (at character ${Number(position[1]) + 1})` : ''
        refuse(`${nameOf(file.url)} is not valid JSON${place}`, 'Fix the file at that place (JSON allows no trailing comma, comment or single quote), or write it as YAML in a .yaml file.')
      }
    },
  }
  return {
    options: {
      resolve: { external: true, file: false, http: false, mockyard: resolver },
      parse: { text: false, binary: false, json: jsonParser, yaml: yamlParser },
    },
    /** The first file the resolver refused, in words; undefined when it refused none. */
    refusal: () => refusal,
  }
}
