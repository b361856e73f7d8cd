/**
 * Example values from the JSON Schemas of an OpenAPI document, for `mockyard init --openapi`
 * (docs/behaviour.md, "OpenAPI: mocks from a contract"). Deterministic: no clock and no
 * randomness, keys in the order the document writes them, so the same document gives the same
 * bytes on every run. Written here rather than taken from `openapi-sampler`: that one takes the
 * first `oneOf` branch whether or not the value also satisfies another (which makes
 * `mockyard check` fail on what it wrote) and ignores discriminators.
 */

import { deref, resolveRef } from '../check/check-openapi.js'

type Json = Record<string, unknown>

/** What the sampler needs from the document: its tree, and a validator when there is one. */
export interface SampleContext {
  /** The bundled document: every `$ref` is internal (`#/components/schemas/User`). */
  doc: Json
  /**
   * Whether a value validates against a schema object of the document (an object of `doc`);
   * undefined when that cannot be told. Used to pick a `oneOf` sample that fits one branch only.
   */
  validates?: (schema: Json, value: unknown) => boolean | undefined
  /**
   * The name a schema object was written under (`Cat` for `components/schemas/Cat`, or a
   * top-level key of another file), for discriminators: bundling writes a schema of another
   * file in place where it is first used, so its `$ref` no longer names it.
   */
  nameOf?: (schema: Json) => string | undefined
}

/** A value that cannot be made without following a `$ref` cycle once more: left out by the caller. */
const CUT: unique symbol = Symbol('cut')
type Sample = unknown

interface State {
  ctx: SampleContext
  /** The `$ref`s being expanded: meeting one of them again is a cycle, cut there. */
  stack: string[]
  depth: number
  /** Schemas this body may still visit: a document whose schemas branch out at every level stays small. */
  budget: number
  /** The schemas with an `$id` being expanded, innermost last: a `#/...` `$ref` inside one is relative to it (JSON Schema 2020-12). */
  resources: Json[]
}

/** Past this depth a schema is cut as a cycle would be (deep documents stay finite). */
const MAX_DEPTH = 40
/** Schemas visited for one body at most; past it, what is left is cut as a cycle would be. */
const MAX_VISITS = 20_000
/** The most items a list gets and characters a string gets, whatever `minItems` or `minLength` ask. */
const MAX_REPEAT = 1_000

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Values for `format`s: valid for ajv-formats, and what a reader recognises at a glance. */
const FORMATS: Record<string, string> = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '00:00:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uri: 'https://example.com',
  url: 'https://example.com',
  iri: 'https://example.com',
  'uri-reference': '/example',
  'iri-reference': '/example',
  'uri-template': 'https://example.com/{id}',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  'json-pointer': '/example',
  'relative-json-pointer': '0',
  regex: '^.*$',
  byte: 'c3RyaW5n',
  binary: 'string',
  password: 'password',
}

/**
 * Shorter values of the formats whose usual value may be over a `maxLength`, shortest last: a
 * formatted value cut to length is no longer of its format (`user@examp`).
 */
const SHORTER_FORMATS: Record<string, string[]> = {
  email: ['a@b.co'],
  'idn-email': ['a@b.co'],
  hostname: ['a.co', 'a'],
  'idn-hostname': ['a.co', 'a'],
  ipv6: ['::1'],
  uri: ['https://a.co', 'a:b'],
  url: ['https://a.co'],
  iri: ['https://a.co', 'a:b'],
  'uri-reference': ['/a', ''],
  'iri-reference': ['/a', ''],
  'uri-template': ['/{id}', ''],
  'json-pointer': ['/a', ''],
  regex: ['.', ''],
  byte: ['YQ==', ''],
}

/** Formats no validator checks (OpenAPI's hints for forms): their value may be cut as any text. */
const FREE_FORMATS = new Set(['binary', 'password'])

/**
 * What a `$ref` names, as JSON Schema 2020-12 reads it: `#/...` relative to the innermost schema
 * with an `$id` being expanded (`#/$defs/Money` inside `Order: { $id, $defs: { Money } }`), else
 * to the document; `#money` the schema whose `$anchor` is `money`; `https://x/order#/...` the
 * schema whose `$id` that is. Undefined when nothing of the document is named.
 */
function resolveIn(ref: string, state: State): unknown {
  const { doc } = state.ctx
  const hash = ref.indexOf('#')
  const uri = hash < 0 ? ref : ref.slice(0, hash)
  const fragment = hash < 0 ? '' : ref.slice(hash + 1)
  let base: unknown = state.resources[state.resources.length - 1]
  if (uri !== '') base = findSchema(doc, (schema) => typeof schema.$id === 'string' && (schema.$id === uri || schema.$id.replace(/#$/, '') === uri))
  if (fragment !== '' && !fragment.startsWith('/')) {
    const anchor = (schema: Json) => schema.$anchor === fragment || schema.$dynamicAnchor === fragment
    return (isObject(base) ? findSchema(base, anchor) : undefined) ?? findSchema(doc, anchor)
  }
  if (isObject(base)) {
    const found = resolveRef(base, `#${fragment}`)
    if (found !== undefined || uri !== '') return found
  }
  return uri === '' ? resolveRef(doc, `#${fragment}`) : undefined
}

/** The first object of a tree (depth first, each once) that `test` accepts. */
function findSchema(root: unknown, test: (schema: Json) => boolean): Json | undefined {
  const seen = new Set<unknown>()
  const walk = (node: unknown, depth: number): Json | undefined => {
    if (typeof node !== 'object' || node === null || seen.has(node) || depth > 200) return undefined
    seen.add(node)
    if (isObject(node) && test(node)) return node
    for (const child of Object.values(node)) {
      const found = walk(child, depth + 1)
      if (found) return found
    }
    return undefined
  }
  return walk(root, 0)
}

/** Keywords that say nothing of a value: beside a `$ref`, they need no merging. */
const ANNOTATIONS = new Set(['$ref', 'description', 'summary', 'title', 'deprecated', 'readOnly', 'writeOnly', 'externalDocs', 'xml', '$comment', 'discriminator'])

/** The last segment of a `$ref`, as a discriminator names a schema: `#/components/schemas/Cat` -> `Cat`. */
function refName(ref: string): string {
  const last = ref.split('/').pop() ?? ref
  return last.replace(/\.(json|ya?ml)$/i, '').replace(/~1/g, '/').replace(/~0/g, '~')
}

/**
 * The discriminator value of a `oneOf`/`anyOf` branch or of a schema reached by `$ref`: the
 * mapping key naming it, else the schema's name, as OpenAPI defines the implicit mapping.
 */
function discriminatorValue(discriminator: Json, ref: string): string {
  const mapping = isObject(discriminator.mapping) ? discriminator.mapping : {}
  for (const [key, target] of Object.entries(mapping)) {
    if (typeof target !== 'string') continue
    if (target === ref || refName(target) === refName(ref)) return key
  }
  return refName(ref)
}

/**
 * `allOf` merged into one schema: properties and required names together, the other keywords of
 * the first schema that has them. Each part's `$ref` is followed (a part already being expanded
 * is left out). An optional property that a part with `additionalProperties: false` does not
 * declare is left out: that part refuses it (its `additionalProperties` sees its own
 * `properties` and `patternProperties` only), so a value carrying it fails the `allOf`.
 */
function mergeAllOf(schema: Json, state: State): Json {
  const merged: Json = {}
  const properties: Json = {}
  const required: string[] = []
  /** Of each part with `additionalProperties: false`: whether it takes a property name. */
  const closed: Array<(name: string) => boolean> = []
  const add = (part: unknown, depth: number) => {
    if (depth > 20) return
    if (isObject(part) && typeof part.$ref === 'string') {
      if (state.stack.includes(part.$ref)) return
      add(resolveIn(part.$ref, state), depth + 1)
      // Keywords beside the `$ref` apply too (2020-12; ajv applies them in every draft).
      const { $ref: _, ...siblings } = part
      if (Object.keys(siblings).length > 0) add(siblings, depth + 1)
      return
    }
    if (!isObject(part)) return
    if (part.additionalProperties === false) {
      const own = new Set(isObject(part.properties) ? Object.keys(part.properties) : [])
      const patterns = isObject(part.patternProperties) ? Object.keys(part.patternProperties) : []
      closed.push((name) => own.has(name) || patterns.some((pattern) => matches(pattern, name)))
    }
    for (const [key, value] of Object.entries(part)) {
      if (key === 'allOf') continue
      if (key === 'properties' && isObject(value)) Object.assign(properties, value)
      else if (key === 'required' && Array.isArray(value)) required.push(...value.filter((v): v is string => typeof v === 'string'))
      else if (!(key in merged)) merged[key] = value
    }
    if (Array.isArray(part.allOf)) for (const item of part.allOf) add(item, depth + 1)
  }
  add(schema, 0)
  if (closed.length > 0) {
    const needed = new Set(required)
    for (const name of Object.keys(properties)) if (!needed.has(name) && !closed.every((takes) => takes(name))) delete properties[name]
  }
  if (Object.keys(properties).length > 0) merged.properties = properties
  if (required.length > 0) merged.required = [...new Set(required)]
  return merged
}

/** Whether a `patternProperties` pattern matches a name (a pattern JavaScript cannot read does not). */
function matches(pattern: string, name: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(name)
  } catch {
    return false
  }
}

/** The types a schema allows, in order; inferred from its keywords when it has no `type`. */
function typesOf(schema: Json): string[] {
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string')
  if (typeof schema.type === 'string') return [schema.type]
  if (isObject(schema.properties) || schema.additionalProperties !== undefined || Array.isArray(schema.required)) return ['object']
  if (schema.items !== undefined || Array.isArray(schema.prefixItems)) return ['array']
  if (typeof schema.format === 'string' || typeof schema.pattern === 'string' || schema.minLength !== undefined) return ['string']
  if (schema.minimum !== undefined || schema.maximum !== undefined || schema.multipleOf !== undefined) return ['number']
  return []
}

/**
 * Whether a property is `writeOnly`: marked itself, or through the schemas it is made of
 * (`{ allOf: [{ $ref: Secret }] }`, 3.0's `nullable` rewritten as `anyOf`).
 */
function isWriteOnly(schema: unknown, doc: Json, depth = 0): boolean {
  const target = deref(doc, schema)
  if (!isObject(target) || depth > 20) return false
  if (target.writeOnly === true) return true
  return ['allOf', 'anyOf'].some((key) => Array.isArray(target[key]) && (target[key] as unknown[]).some((part) => isWriteOnly(part, doc, depth + 1)))
}

/** The value left where a cycle was cut and the value is required: null, an empty list or object. */
function smallestOf(schema: unknown, doc: Json): unknown {
  const target = deref(doc, schema)
  if (!isObject(target)) return null
  const types = typesOf(target)
  // 3.0's `nullable` (as written, or without a type read as `anyOf: [<schema>, { type: null }]`).
  const nullBranch = Array.isArray(target.anyOf) && target.anyOf.some((branch) => isObject(branch) && branch.type === 'null')
  if (types.includes('null') || target.nullable === true || nullBranch) return null
  if (types.includes('array')) return []
  if (types.includes('string')) return ''
  if (types.includes('integer') || types.includes('number')) return 0
  if (types.includes('boolean')) return false
  return {}
}

/**
 * A string that a simple regular expression matches: literals, escapes (`\d`, `\w`, `\s`),
 * classes (their first character), `.`, groups (their first alternative) and quantifiers (their
 * least count, at least one where `+` or `{n}` asks). Undefined for what it cannot read
 * (lookarounds, back references); the caller checks the result against the pattern anyway.
 */
export function stringForPattern(pattern: string): string | undefined {
  let i = 0
  const atom = (): string | undefined => {
    const c = pattern[i++]!
    if (c === '\\') {
      const e = pattern[i++]
      if (e === undefined) return undefined
      if (e === 'd') return '0'
      if (e === 'w') return 'a'
      if (e === 's') return ' '
      if (e === 'D' || e === 'W' || e === 'S') return '-'
      if (/[bB]/.test(e)) return ''
      if (/[1-9kpPuxc]/.test(e)) return undefined
      if (e === 'n') return '\n'
      if (e === 't') return '\t'
      return e
    }
    if (c === '[') {
      const negated = pattern[i] === '^'
      if (negated) i++
      let first: string | undefined
      while (i < pattern.length && (pattern[i] !== ']' || first === undefined)) {
        let ch = pattern[i++]!
        if (ch === '\\') {
          const e = pattern[i++] ?? ''
          ch = e === 'd' ? '0' : e === 'w' ? 'a' : e === 's' ? ' ' : e
        }
        first ??= ch
        if (pattern[i] === ']' && first !== undefined) break
      }
      i++ // ]
      if (negated) return /[a-z]/.test(first ?? '') ? '0' : 'a'
      return first
    }
    if (c === '(') {
      if (pattern[i] === '?') {
        if (pattern[i + 1] !== ':') return undefined
        i += 2
      }
      const inner = sequence()
      if (pattern[i] !== ')') return undefined
      i++
      return inner
    }
    if (c === '.') return 'a'
    if (c === '^' || c === '$') return ''
    return c
  }
  const sequence = (): string | undefined => {
    let out = ''
    while (i < pattern.length && pattern[i] !== ')') {
      if (pattern[i] === '|') {
        // The first alternative is enough: skip the rest of this group.
        let depth = 0
        while (i < pattern.length && !(depth === 0 && pattern[i] === ')')) {
          if (pattern[i] === '\\') i++
          else if (pattern[i] === '(') depth++
          else if (pattern[i] === ')') depth--
          i++
        }
        break
      }
      const text = atom()
      if (text === undefined) return undefined
      let count = 1
      const q = pattern[i]
      if (q === '*' || q === '?') {
        count = 0
        i++
      } else if (q === '+') i++
      else if (q === '{') {
        const m = /^\{(\d+)(,\d*)?\}/.exec(pattern.slice(i))
        if (m) {
          count = Math.min(Number(m[1]), MAX_REPEAT)
          i += m[0].length
        }
      }
      if (pattern[i] === '?' || pattern[i] === '+') i++ // lazy or possessive
      out += text.repeat(count)
    }
    return out
  }
  try {
    return sequence()
  } catch {
    return undefined
  }
}

function sampleString(schema: Json): string {
  const format = typeof schema.format === 'string' ? schema.format : undefined
  let value = (format && FORMATS[format]) ?? 'string'
  let formatted = format !== undefined && FORMATS[format] !== undefined && !FREE_FORMATS.has(format)
  let regex: RegExp | undefined
  if (typeof schema.pattern === 'string') {
    try {
      regex = new RegExp(schema.pattern, 'u')
    } catch {
      regex = undefined
    }
    if (regex && !regex.test(value)) {
      const made = stringForPattern(schema.pattern)
      if (made !== undefined && regex.test(made)) {
        value = made
        formatted = false
      }
    }
  }
  const min = typeof schema.minLength === 'number' ? Math.min(schema.minLength, MAX_REPEAT) : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
  if (formatted && value.length > max) {
    // A shorter value of the format; none fits, the usual one whole (the schema allows no value).
    const fits = (SHORTER_FORMATS[format!] ?? []).find((short) => short.length <= max && short.length >= min && (regex === undefined || regex.test(short)))
    return fits ?? value
  }
  if (value.length < min) value = value + 'x'.repeat(min - value.length)
  if (value.length > max) value = value.slice(0, max)
  return value
}

function sampleNumber(schema: Json, integer: boolean): number {
  const exclusiveMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined
  const exclusiveMax = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined
  const lower = exclusiveMin !== undefined ? exclusiveMin + 1 : min
  const upper = exclusiveMax !== undefined ? exclusiveMax - 1 : max
  let value = 0
  // A range narrower than the step of one: its middle.
  if (lower !== undefined && upper !== undefined && lower > upper) value = ((exclusiveMin ?? min)! + (exclusiveMax ?? max)!) / 2
  else if (lower !== undefined) value = lower
  else if (upper !== undefined && upper < 0) value = upper
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : undefined
  if (step) value = multipleAtLeast(value, step)
  if (integer) value = lower !== undefined ? Math.ceil(value) : Math.floor(value)
  return value
}

/**
 * The least multiple of a step from a value up, as a validator counts multiples: `value / step`
 * an integer. In binary floating point `0.3 / 0.1` is 2.9999999999999996 and `3 * 0.1` is
 * 0.30000000000000004, so each candidate is rounded to the step's decimals and tried in turn
 * (`minimum: 0.3, multipleOf: 0.1` gives 0.4, which ajv accepts).
 */
function multipleAtLeast(value: number, step: number): number {
  const decimals = (String(step).split('.')[1] ?? '').length
  const quotient = value / step
  let n = Math.abs(quotient - Math.round(quotient)) < 1e-9 ? Math.round(quotient) : Math.ceil(quotient)
  for (let tries = 0; tries < 20; tries++, n++) {
    const candidate = decimals > 0 && decimals <= 20 ? Number((n * step).toFixed(decimals)) : n * step
    if (Number.isInteger(candidate / step) && candidate >= value) return candidate
  }
  return Math.ceil(quotient) * step
}

function sampleArray(schema: Json, state: State): Sample {
  if (Array.isArray(schema.prefixItems)) {
    const out: unknown[] = []
    for (const item of schema.prefixItems) {
      const value = sample(item, state)
      if (value === CUT) break
      out.push(value)
    }
    return out
  }
  if (schema.maxItems === 0 || schema.items === undefined || schema.items === false) return []
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0
  const item = sample(schema.items, state)
  // A cut cycle gives no item: an empty list, unless the list needs items (then the caller leaves
  // an optional property out rather than write a list its check refuses).
  if (item === CUT) return minItems > 0 ? CUT : []
  const count = Math.min(Math.max(1, minItems), MAX_REPEAT)
  if (schema.uniqueItems !== true || count < 2) return Array.from({ length: count }, () => structuredClone(item))
  // Items that must differ: the item varied (another enum value, a number one step up, a text with a count).
  const items = deref(state.ctx.doc, schema.items)
  const out = [item]
  const seen = new Set([JSON.stringify(item)])
  for (let n = 1; out.length < count && n < count * 4; n++) {
    const next = variantOf(item, n, isObject(items) ? items : {})
    const key = JSON.stringify(next)
    if (seen.has(key) || (isObject(schema.items) && state.ctx.validates?.(schema.items, next) === false)) continue
    seen.add(key)
    out.push(next)
  }
  return out
}

/** The `n`th variant of a sample, for items that must be unique: its enum's next value, else its first scalar changed. */
function variantOf(value: unknown, n: number, schema: Json): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return structuredClone(schema.enum[n % schema.enum.length])
  if (typeof value === 'string') {
    const text = `${value}${n + 1}`
    return typeof schema.maxLength === 'number' && text.length > schema.maxLength ? `${value.slice(0, Math.max(0, schema.maxLength - String(n + 1).length))}${n + 1}` : text
  }
  if (typeof value === 'number') return value + n * (typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : 1)
  if (typeof value === 'boolean') return n % 2 === 1 ? !value : value
  if (Array.isArray(value)) return [...value, ...Array.from({ length: n }, () => structuredClone(value[0] ?? null))]
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {}
    for (const [key, child] of Object.entries(value)) {
      if (typeof child === 'string' || typeof child === 'number' || typeof child === 'boolean') {
        const property = properties[key]
        return { ...value, [key]: variantOf(child, n, isObject(property) ? property : {}) }
      }
    }
    return { ...value, [`additionalProp${n + 1}`]: 'string' }
  }
  return value
}

function sampleObject(schema: Json, state: State): Sample {
  const { doc } = state.ctx
  const out: Json = {}
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [])
  /** Properties the API only accepts: a response body never carries them, required or not (OpenAPI's rule). */
  const writeOnly = new Set<string>()
  for (const [name, property] of Object.entries(properties)) {
    if (isWriteOnly(property, doc)) {
      writeOnly.add(name)
      continue
    }
    const value = sample(property, state)
    if (value !== CUT) out[name] = value
    else if (required.has(name)) out[name] = smallestOf(property, doc)
  }
  const extra = schema.additionalProperties
  const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : []
  /** The schema a name with no property of its own takes: the first `patternProperties` matching it, else `additionalProperties`. */
  const schemaFor = (name: string): unknown => {
    for (const [pattern, value] of patterns) {
      try {
        if (new RegExp(pattern, 'u').test(name)) return value
      } catch {
        // a pattern JavaScript cannot read: not this one
      }
    }
    return extra
  }
  for (const name of required) {
    if (name in out || writeOnly.has(name)) continue
    const own = schemaFor(name)
    const value = isObject(own) ? sample(own, state) : 'string'
    out[name] = value === CUT ? smallestOf(own, doc) : value
  }
  if (Object.keys(out).length === 0 && isObject(extra) && Object.keys(properties).length === 0) {
    const value = sample(extra, state)
    if (value !== CUT) out.additionalProp1 = value
  }
  // `minProperties`: names of its patterns, else additional ones, until there are enough.
  const least = typeof schema.minProperties === 'number' ? Math.min(schema.minProperties, MAX_REPEAT) : 0
  for (let n = 1; Object.keys(out).length < least && n <= least + patterns.length; n++) {
    const pattern = patterns[n - 1]
    const name = pattern ? stringForPattern(pattern[0]) : `additionalProp${n}`
    if (name === undefined || name in out || (!pattern && extra === false)) continue
    const own = pattern ? pattern[1] : extra
    const value = isObject(own) ? sample(own, state) : 'string'
    if (value !== CUT) out[name] = value
  }
  return out
}

/** `oneOf`/`anyOf`: each branch merged with the schema's own keywords, in order (below). */
function sampleBranches(schema: Json, keyword: 'oneOf' | 'anyOf', state: State): Sample {
  const branches = schema[keyword] as unknown[]
  const { [keyword]: _, ...own } = schema
  const discriminator = isObject(schema.discriminator) ? schema.discriminator : undefined
  let fallback: Sample = CUT
  for (const branch of branches) {
    const ref = isObject(branch) && typeof branch.$ref === 'string' ? branch.$ref : undefined
    if (ref && state.stack.includes(ref)) continue
    const named = ref ?? (isObject(branch) ? state.ctx.nameOf?.(branch) : undefined)
    const merged = Object.keys(own).length > 0 ? { allOf: [own, branch] } : branch
    let value = sample(merged, state, named)
    if (value === CUT) continue
    if (discriminator && named && typeof discriminator.propertyName === 'string' && isObject(value)) {
      value = { ...value, [discriminator.propertyName]: discriminatorValue(discriminator, named) }
    }
    if (fallback === CUT) fallback = value
    if (keyword === 'anyOf' || !state.ctx.validates) return value
    // oneOf: the first value that satisfies exactly one branch, as a validator will require.
    const validates = state.ctx.validates
    const others = (candidate: unknown) => branches.filter((other) => other !== branch && isObject(other) && validates(other, candidate) !== false)
    const fitsOnly = (candidate: unknown) => isObject(branch) && validates(branch, candidate) !== false && (isObject(merged) ? validates(merged, candidate) !== false : true) && others(candidate).length === 0
    if (fitsOnly(value)) return value
    if (!isObject(value)) continue
    // Its required properties only (`oneOf: [{ required: [email] }, { required: [phone] }]`).
    const needed = isObject(merged) ? requiredNames(merged, state) : undefined
    if (needed) {
      const least = Object.fromEntries(Object.entries(value).filter(([key]) => needed.has(key) || key === (discriminator?.propertyName as string | undefined)))
      if (fitsOnly(least)) return least
    }
    // Branches of one shape (`{ radius }` and `{ side }`, no additionalProperties: false): a
    // property another branch declares and this one does not, with a value of another type,
    // which only that branch refuses.
    const broken = { ...value }
    for (const other of others(value)) {
      const target = deref(state.ctx.doc, other)
      const declared = isObject(target) && isObject(target.properties) ? target.properties : {}
      const mine = branchProperties(branch, state)
      for (const [key, property] of Object.entries(declared)) {
        if (key in broken || mine.has(key)) continue
        const wrong = wrongValueFor(deref(state.ctx.doc, property))
        if (wrong === undefined) continue
        broken[key] = wrong
        break
      }
    }
    if (fitsOnly(broken)) return broken
  }
  return fallback
}

/** The names a schema requires, its `allOf` parts and `$ref`s followed. */
function requiredNames(schema: unknown, state: State, depth = 0, out = new Set<string>()): Set<string> {
  const target = isObject(schema) && typeof schema.$ref === 'string' ? resolveIn(schema.$ref, state) : schema
  if (!isObject(target) || depth > 20) return out
  if (Array.isArray(target.required)) for (const name of target.required) if (typeof name === 'string') out.add(name)
  if (Array.isArray(target.allOf)) for (const part of target.allOf) requiredNames(part, state, depth + 1, out)
  return out
}

/** The properties a schema declares, its `allOf` parts and `$ref`s followed. */
function branchProperties(schema: unknown, state: State, depth = 0, out = new Set<string>()): Set<string> {
  const target = isObject(schema) && typeof schema.$ref === 'string' ? resolveIn(schema.$ref, state) : schema
  if (!isObject(target) || depth > 20) return out
  if (isObject(target.properties)) for (const name of Object.keys(target.properties)) out.add(name)
  if (Array.isArray(target.allOf)) for (const part of target.allOf) branchProperties(part, state, depth + 1, out)
  return out
}

/** A value a property's schema refuses by its type alone, when it names one. */
function wrongValueFor(schema: unknown): unknown {
  if (!isObject(schema)) return undefined
  const types = typesOf(schema)
  if (types.length === 0) return undefined
  if (!types.includes('string')) return 'string'
  if (!types.includes('number') && !types.includes('integer')) return 0
  if (!types.includes('boolean')) return true
  return undefined
}

/**
 * A value of a schema: its `const`, `example`, first `examples` item, `default` or first `enum`
 * value when it has one; else made from its type and keywords (formats, bounds, lengths, simple
 * patterns, required properties, `allOf` merged, the first fitting `oneOf` branch, the first
 * `anyOf` branch, the first non-null type of a type list). A `$ref` met again while it is being
 * expanded is a cycle: an optional property is left out there, a list is empty, a required
 * property gets the smallest value its type allows.
 *
 * @example
 * sampleSchema({ type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } }, { doc })
 * // { id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' }
 */
export function sampleSchema(schema: unknown, ctx: SampleContext): unknown {
  const value = sample(schema, { ctx, stack: [], depth: 0, budget: MAX_VISITS, resources: [] })
  return value === CUT ? null : value
}

/** `name`: the `$ref` the schema was reached by, for a discriminator of a parent in its `allOf`. */
function sample(schema: unknown, state: State, name?: string): Sample {
  if (schema === undefined || schema === true) return {}
  if (schema === false || !isObject(schema)) return CUT
  if (state.depth > MAX_DEPTH || --state.budget < 0) return CUT
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref
    if ('example' in schema && schema.example !== undefined) return structuredClone(schema.example)
    // Keywords beside a `$ref` apply too (2020-12; ajv applies them in every draft, so check does): both, merged.
    if (Object.keys(schema).some((key) => !ANNOTATIONS.has(key))) {
      const { $ref: _, ...siblings } = schema
      return sample({ allOf: [{ $ref: ref }, siblings] }, state, name)
    }
    if (state.stack.includes(ref)) return CUT
    const target = resolveIn(ref, state)
    if (target === undefined) return {}
    state.stack.push(ref)
    state.depth++
    try {
      return sample(target, state, ref)
    } finally {
      state.stack.pop()
      state.depth--
    }
  }
  if ('const' in schema) return structuredClone(schema.const)
  if ('example' in schema && schema.example !== undefined) return structuredClone(schema.example)
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return structuredClone(schema.examples[0])
  if ('default' in schema && schema.default !== undefined) return structuredClone(schema.default)
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return structuredClone(schema.enum.find((v) => v !== null) ?? schema.enum[0])

  // A schema with an `$id` is a resource: `#/...` `$ref`s inside it are relative to it.
  const resource = typeof schema.$id === 'string'
  if (resource) state.resources.push(schema)
  state.depth++
  try {
    if (Array.isArray(schema.allOf)) {
      const merged = mergeAllOf(schema, state)
      const value = sample(merged, state)
      // A schema reached by `$ref` whose `allOf` parent has a discriminator is that parent's variant.
      const discriminator = isObject(merged.discriminator) ? merged.discriminator : undefined
      name ??= state.ctx.nameOf?.(schema)
      if (name && discriminator && typeof discriminator.propertyName === 'string' && isObject(value)) {
        return { ...value, [discriminator.propertyName]: discriminatorValue(discriminator, name) }
      }
      return value
    }
    if (Array.isArray(schema.oneOf) && schema.oneOf.length > 0) return sampleBranches(schema, 'oneOf', state)
    if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0) return sampleBranches(schema, 'anyOf', state)
    const types = typesOf(schema)
    const type = types.find((t) => t !== 'null') ?? (types.includes('null') ? 'null' : undefined)
    switch (type) {
      case 'null':
        return null
      case 'string':
        return sampleString(schema)
      case 'integer':
        return sampleNumber(schema, true)
      case 'number':
        return sampleNumber(schema, false)
      case 'boolean':
        return true
      case 'array':
        return sampleArray(schema, state)
      case 'object':
        return sampleObject(schema, state)
      default:
        return {}
    }
  } finally {
    state.depth--
    if (resource) state.resources.pop()
  }
}
