import { readFileSync, statSync } from 'node:fs'
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml'

type Parsed = { doc: ReturnType<typeof parseDocument>; lines: LineCounter } | null

function decodeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~')
}

/**
 * A line finder for one check run: it parses each file once, and forgets them with the run (a
 * later run reads the files as they are then).
 *
 * The finder gives the line (1-based) of a JSON Pointer in a JSON or YAML file: the line of the
 * key that holds the value (or of the array item), or of the deepest part of the pointer that
 * exists. YAML 1.2 reads JSON too, with positions, so one parser serves routes, data and OpenAPI
 * files. `undefined` when the file cannot be read or parsed.
 *
 * @example
 * const findLine = createLineFinder()
 * findLine('mocks/routes.json', '/v1~1users/file') // 2
 */
export function createLineFinder(): (path: string, pointer: string) => number | undefined {
  const cache = new Map<string, Parsed>()
  return (path, pointer) => {
    let parsed = cache.get(path)
    if (parsed === undefined) {
      parsed = parse(path)
      cache.set(path, parsed)
    }
    return parsed ? lineOf(parsed, pointer) : undefined
  }
}

/** Files larger than this get no line: the check never reads a file without bound (a 10 GB log named by mistake). */
const LINE_FILE_LIMIT = 32 * 1024 * 1024

function parse(path: string): Parsed {
  try {
    const stats = statSync(path)
    if (!stats.isFile() || stats.size > LINE_FILE_LIMIT) return null
    const lines = new LineCounter()
    const doc = parseDocument(readFileSync(path, 'utf8'), { lineCounter: lines, uniqueKeys: false })
    return doc.errors.length > 0 ? null : { doc, lines }
  } catch {
    return null
  }
}

function lineOf(parsed: NonNullable<Parsed>, pointer: string): number {
  let node: unknown = parsed.doc.contents
  let offset = (node as Node | null)?.range?.[0] ?? 0
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const token = decodeToken(raw)
    if (isMap(node)) {
      const pair = node.items.find((p) => String((p.key as { value?: unknown } | null)?.value ?? p.key) === token)
      if (!pair) break
      offset = (pair.key as Node | null)?.range?.[0] ?? offset
      node = pair.value
    } else if (isSeq(node)) {
      const item = node.items[Number(token)] as Node | undefined
      if (!/^\d+$/.test(token) || !item) break
      offset = item.range?.[0] ?? offset
      node = item
    } else break
  }
  return parsed.lines.linePos(offset).line
}
