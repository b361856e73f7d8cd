// mockyard dashboard: plain DOM, no dependencies, no build step. Served by the listener at
// /__mockyard/; it reads /__mockyard/dashboard/* and listens to its event stream.
// Data always goes in through textContent, never as HTML.

const API = 'dashboard/'
/** Rows drawn at most; the log itself is bounded by requestLog.limit. */
const MAX_ROWS = 500

const $ = (id) => document.getElementById(id)
const state = {
  requests: [], // summaries, oldest first
  limit: 1000,
  sessions: new Set(),
  selected: null, // id of the request open in the detail panel
  info: null, // the last /state answer (options, files, reload)
  view: 'requests',
  dirty: false,
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue
    if (name === 'class') node.className = value
    else if (name === 'text') node.textContent = value
    else node.setAttribute(name, value === true ? '' : String(value))
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child)
  return node
}

/**
 * A path (or URL) that wraps between its parts, not inside a word: a break opportunity after
 * each `/`, `?`, `&` and `=`; the CSS breaks a single segment only when it alone is too wide.
 */
function wrappable(text) {
  const fragment = document.createDocumentFragment()
  for (const piece of text.split(/(?<=[/?&=])/)) fragment.append(piece, document.createElement('wbr'))
  return fragment
}

async function getJson(path) {
  const response = await fetch(API + path, { headers: { accept: 'application/json' }, cache: 'no-store' })
  if (!response.ok) throw new Error(`${response.status} ${(await response.text()).slice(0, 300)}`)
  return response.json()
}

function pathOf(url) {
  try {
    const parsed = new URL(url)
    return parsed.pathname + parsed.search
  } catch {
    return url
  }
}

function timeOf(iso) {
  const date = new Date(iso)
  const pad = (n, w = 2) => String(n).padStart(w, '0')
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`
}

function isProxied(record) {
  return record.proxied === true || record.entry === 'proxy' || record.entry === 'proxied'
}

/** What answered: `route · entry`, `handler`, `proxied`, or `unmatched`. */
function answeredBy(record) {
  if (isProxied(record)) return el('span', { class: 'tag proxy', text: 'proxied' })
  if (!record.matched) return el('span', { class: 'tag bad', text: 'unmatched' })
  if (record.entry === 'handler') return el('span', { class: 'tag', text: 'handler' })
  return el('span', {}, el('code', { text: record.route ?? '' }), ' · ', el('code', { text: record.entry ?? '' }))
}

/** A GraphQL request's operation, beside its path. */
function operationTag(record) {
  return record.operation ? [' ', el('span', { class: 'tag operation', title: 'GraphQL operation', text: record.operation })] : []
}

function sessionLabel(session) {
  return session === '' ? '(no session)' : session
}

// ---------------------------------------------------------------- filters

function filters() {
  return {
    session: $('f-session').value,
    path: $('f-path').value.trim().toLowerCase(),
    status: $('f-status').value,
    unmatched: $('f-unmatched').checked,
  }
}

function fits(record, f) {
  if (f.session !== '*' && record.session !== f.session) return false
  if (f.path && !pathOf(record.url).toLowerCase().includes(f.path) && !(record.operation ?? '').toLowerCase().includes(f.path)) return false
  if (f.status && String(record.status).charAt(0) !== f.status) return false
  if (f.unmatched && record.matched) return false
  return true
}

function refreshSessions() {
  const select = $('f-session')
  const known = new Set([...select.options].map((o) => o.value))
  for (const session of [...state.sessions].sort()) {
    if (known.has(session)) continue
    select.append(el('option', { value: session, text: sessionLabel(session) }))
  }
  const chosen = select.value
  $('reset-session').disabled = chosen === '*' || chosen === ''
  $('reset-session').textContent = chosen === '*' || chosen === '' ? 'Reset session' : `Reset session ${chosen.length > 14 ? chosen.slice(0, 12) + '…' : chosen}`
}

// ---------------------------------------------------------------- request list

function rowOf(record) {
  const row = el('tr', {
    class: 'row' + (record.matched ? '' : ' unmatched'),
    tabindex: '0',
    'data-id': record.id,
    'aria-selected': state.selected === record.id ? 'true' : 'false',
  })
  const session = record.session === '' ? '—' : record.session.length > 16 ? record.session.slice(0, 14) + '…' : record.session
  row.append(
    el('td', { class: 'time', text: timeOf(record.time) }),
    el('td', { class: 'session', title: sessionLabel(record.session), text: session }),
    el('td', { class: 'method', text: methodText(record) }),
    el('td', { class: 'path mono' }, wrappable(pathOf(record.url)), ...operationTag(record)),
    el('td', { class: `status status-${String(record.status).charAt(0)}`, text: statusText(record) }),
    el('td', { class: 'by' }, answeredBy(record)),
    el('td', { class: 'file' }, record.file ?? '', ...streamTag(record)),
    el('td', { class: 'ms', text: String(record.durationMs) }),
  )
  return row
}

/** A request's violations of the `validate` document, one line each: where, the JSON pointer, what, the schema path. */
function violationsText(record) {
  return record.violations
    .map((v) => `${v.where}${v.where === 'response' && record.file ? ` ${record.file}` : ''}#${v.pointer}: ${v.message}${v.schema ? `\n  schema ${v.schema}` : ''}`)
    .join('\n')
}

/** A WebSocket record's kind in the method column: the connection, or a message in or out. */
function methodText(record) {
  if (record.kind !== 'websocket') return record.method
  return record.direction === 'in' ? 'WS ←' : record.direction === 'out' ? 'WS →' : 'WS open'
}

function renderRequests() {
  const f = filters()
  const shown = []
  let total = 0
  for (let i = state.requests.length - 1; i >= 0; i--) {
    const record = state.requests[i]
    if (!fits(record, f)) continue
    total++
    if (shown.length < MAX_ROWS) shown.push(record)
  }
  const body = $('requests').tBodies[0]
  const focusedId = document.activeElement?.closest?.('tr.row')?.dataset.id
  const rows = document.createDocumentFragment()
  for (const record of shown) {
    rows.append(rowOf(record))
    if (!record.matched && record.explanation) {
      rows.append(el('tr', { class: 'explain', 'data-for': record.id }, el('td', { colspan: '8' }, el('pre', { class: 'explanation', text: record.explanation }))))
    }
    if (record.violations) {
      rows.append(el('tr', { class: 'explain', 'data-for': record.id }, el('td', { colspan: '8' }, el('pre', { class: 'explanation violations', text: violationsText(record) }))))
    }
  }
  body.replaceChildren(rows)
  if (focusedId) body.querySelector(`tr.row[data-id="${focusedId}"]`)?.focus({ preventScroll: true })
  const all = state.requests.length
  const unmatched = state.requests.filter((r) => !r.matched).length
  $('count').textContent =
    `${total} of ${all} request${all === 1 ? '' : 's'} shown` +
    (total > shown.length ? ` (the newest ${shown.length})` : '') +
    (unmatched > 0 ? `; ${unmatched} unmatched` : '') +
    `. The log keeps the latest ${state.limit}.`
  $('empty').hidden = all > 0
}

function schedule() {
  if (state.dirty) return
  state.dirty = true
  requestAnimationFrame(() => {
    state.dirty = false
    renderRequests()
  })
}

function addRequests(records) {
  // Ids only grow, a reset included: a record already held (read with /state while its batch was
  // on the way) is not shown twice.
  for (const arrived of arrivals) arrived.push(...records)
  // Nor one from before the state last read (`log.lastId`): it is shown already, or was reset.
  const newest = Math.max(state.requests.length > 0 ? state.requests[state.requests.length - 1].id : -1, state.info?.log.lastId ?? -1)
  for (const record of records) {
    if (record.id <= newest) continue
    state.requests.push(record)
    state.sessions.add(record.session)
  }
  if (state.requests.length > state.limit) state.requests.splice(0, state.requests.length - state.limit)
  refreshSessions()
  schedule()
}

// ---------------------------------------------------------------- one request in full

function headersTable(headers, caption) {
  const entries = Object.entries(headers ?? {})
  if (entries.length === 0) return el('p', { class: 'count', text: 'none recorded' })
  const table = el('table', { class: 'headers' }, el('caption', { class: 'visually-hidden', text: caption }))
  const body = el('tbody')
  for (const [name, value] of entries) body.append(el('tr', {}, el('th', { scope: 'row', class: 'mono', text: name }), el('td', { class: 'mono', text: value })))
  table.append(body)
  return table
}

const TEXT_TYPES = /^(text\/|application\/(json|[a-z.+-]*\+json|x-ndjson|jsonl|xml|[a-z.+-]*\+xml|x-www-form-urlencoded|javascript|graphql|(x-)?yaml|toml))/i

/**
 * A multipart form's parts, one line each: `name = value` for a field, `name: file "x.png"
 * (image/png)` for a file (the scoring matches a file field by its file name). Null when the
 * body does not read as one.
 */
function multipartLines(body, type) {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type)
  if (!match) return null
  const lines = []
  for (const part of body.split('--' + (match[1] ?? match[2])).slice(1)) {
    if (part.startsWith('--')) break
    const end = part.indexOf('\r\n\r\n')
    if (end === -1) continue
    const head = part.slice(0, end)
    const name = /(?:^|;)\s*name="([^"]*)"/im.exec(head)?.[1] ?? '?'
    const file = /filename="([^"]*)"/i.exec(head)?.[1]
    const type = /^content-type:\s*([^\r\n]+)/im.exec(head)?.[1]
    if (file !== undefined) lines.push(`${name}: file "${file}"${type ? ` (${type})` : ''}`)
    else lines.push(`${name} = ${part.slice(end + 4).replace(/\r\n$/, '')}`)
  }
  return lines.length > 0 ? lines : null
}

function bodyView(record) {
  if (record.body === null || record.body === undefined) return el('p', { class: 'count', text: 'no body' })
  const type = record.headers['content-type'] ?? ''
  const length = record.headers['content-length']
  if (/^multipart\/form-data/i.test(type)) {
    const lines = multipartLines(record.body, type)
    if (lines) return el('pre', { class: 'body', text: `multipart form, ${lines.length} part${lines.length === 1 ? '' : 's'}:\n${lines.join('\n')}` })
  }
  const binary = (type !== '' && !TEXT_TYPES.test(type) && !type.startsWith('multipart/form-data')) || record.body.includes('\uFFFD')
  if (binary) {
    const size = length ?? String(new TextEncoder().encode(record.body).byteLength)
    return el('p', { text: `binary body (${type || 'no content-type'}), ${size} byte${size === '1' ? '' : 's'}` })
  }
  return el('pre', { class: 'body', text: record.body })
}

/** A record's status, or the fault played instead (`reset`; `200 truncate`). */
function statusText(record) {
  if (!record.fault) return String(record.status)
  return record.fault === 'truncate' ? `${record.status} truncate` : `fault: ${record.fault}`
}

/**
 * The response body as the log kept it (a route's answer: text up to 64 KB, a binary one shown
 * as its type and size); an answer from a handler or the proxy target is not recorded.
 */
function responseBodyView(record) {
  if (record.stream) return el('p', { class: 'count', text: `streamed in timed pieces (not recorded); the stream ${record.stream === 'open' ? 'was open when this record was read' : 'has ended'}` })
  if (record.fault && record.fault !== 'truncate') return el('p', { class: 'count', text: `no response: the fault "${record.fault}" was played` })
  if (record.responseBody === undefined) {
    return el('p', { class: 'count', text: record.status === 0 ? 'no response (nothing answered in process)' : 'not recorded (only a route’s answer is kept)' })
  }
  return bodyView({ body: record.responseBody, headers: record.responseHeaders ?? {} })
}

async function openDetail(id, focus = true) {
  state.selected = id
  for (const row of document.querySelectorAll('#requests tr.row')) row.setAttribute('aria-selected', row.dataset.id === String(id) ? 'true' : 'false')
  const panel = $('detail')
  const body = $('detail-body')
  panel.hidden = false
  panel.parentElement.classList.add('with-detail')
  body.replaceChildren(el('p', { class: 'count', text: 'loading…' }))
  // Below 900 px the details sit under the list: bring them into view, or a tap seems to do nothing.
  if (STACKED.matches) panel.scrollIntoView({ block: 'start' })
  let record
  try {
    record = await getJson(`requests/${id}`)
  } catch (error) {
    $('detail-title').textContent = `Request #${id}`
    body.replaceChildren(el('p', { text: `This request is no longer in the log (${error.message}).` }))
    return
  }
  if (state.selected !== id) return
  $('detail-title').replaceChildren(`${record.method} `, wrappable(pathOf(record.url)))
  const facts = el('dl')
  const fact = (name, value) => facts.append(el('dt', { text: name }), el('dd', {}, value))
  fact('Time', record.time)
  fact('Session', sessionLabel(record.session))
  fact('URL', el('span', { class: 'mono' }, wrappable(record.url)))
  fact('Status', el('span', { class: `status-${String(record.status).charAt(0)}`, text: statusText(record) }))
  fact('Answered by', answeredBy(record))
  if (record.file) fact('File', el('code', { text: record.file }))
  fact('Duration', `${record.durationMs} ms`)
  const parts = [facts]
  if (!record.matched && record.explanation) parts.push(el('h3', { text: 'Why nothing answered' }), el('pre', { class: 'explanation', text: record.explanation }))
  if (record.violations) parts.push(el('h3', { text: 'Breaks the contract (validate)' }), el('pre', { class: 'explanation violations', text: violationsText(record) }))
  parts.push(el('h3', { text: 'Request headers' }), headersTable(record.headers, 'Request headers'))
  parts.push(el('h3', { text: 'Request body' }), bodyView(record))
  parts.push(el('h3', { text: `Response ${statusText(record)}` }), headersTable(record.responseHeaders, 'Response headers'))
  parts.push(el('h3', { text: 'Response body' }), responseBodyView(record))
  body.replaceChildren(...parts)
  if (focus) panel.focus({ preventScroll: STACKED.matches })
  if (STACKED.matches) panel.scrollIntoView({ block: 'start' })
}

/** The width below which the details go under the list (app.css). */
const STACKED = window.matchMedia('(max-width: 900px)')

function closeDetail() {
  const id = state.selected
  state.selected = null
  $('detail').hidden = true
  $('detail').parentElement.classList.remove('with-detail')
  for (const row of document.querySelectorAll('#requests tr.row[aria-selected=true]')) row.setAttribute('aria-selected', 'false')
  if (id !== null) document.querySelector(`#requests tr.row[data-id="${id}"]`)?.focus()
}

// ---------------------------------------------------------------- routes

/** A streamed answer's state (`stream`, `events`): open, or ended. */
function streamTag(record) {
  if (!record.stream) return []
  return [' ', el('span', { class: 'tag', title: 'a streamed answer (stream or events)', text: `stream ${record.stream}` })]
}

function conditionText(value) {
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

function answerText(entry) {
  if (entry.answer !== undefined) return entry.answer
  if (entry.sequence) return `a sequence of ${entry.sequence.length}`
  const parts = []
  if (entry.url) parts.push(`redirect ${entry.url}`)
  else if (entry.events) parts.push(`events: ${entry.events}`)
  else if (entry.file) parts.push(entry.file)
  if (entry.stream && !entry.url && !entry.events) parts.push(`streamed by ${entry.stream.by === 'line' ? 'line' : `${entry.stream.by} bytes`} every ${entry.stream.delay} ms`)
  parts.push(entry.fault && entry.fault !== 'truncate' ? `fault: ${entry.fault}` : String(entry.status))
  if (entry.fault === 'truncate') parts.push('truncate')
  if (entry.latency !== null && entry.latency !== undefined) parts.push(`${entry.latency} ms`)
  return parts.join(' · ')
}

async function renderRoutes() {
  const session = $('f-session').value === '*' ? '' : $('f-session').value
  let view
  try {
    view = await getJson(`routes?session=${encodeURIComponent(session)}`)
  } catch (error) {
    $('routes').replaceChildren(el('p', { text: `The route table did not load: ${error.message}` }))
    return
  }
  const overrides = []
  if (view.overrides.everyone.length > 0) overrides.push(`overrides for everyone: ${view.overrides.everyone.join(', ')}`)
  if (view.overrides.session.length > 0) overrides.push(`overrides of this session: ${view.overrides.session.join(', ')}`)
  const others = view.overrides.sessions ?? []
  if (others.length > 0) {
    const named = others.slice(0, 5).join(', ') + (others.length > 5 ? ` and ${others.length - 5} more` : '')
    overrides.push(`${session === '' ? '' : 'other '}session${others.length === 1 ? '' : 's'} with overrides of their own: ${named} (pick one in the session filter to see its table)`)
  }
  $('routes-head').textContent =
    `${view.routes.length} route${view.routes.length === 1 ? '' : 's'}; sequence positions of ${session === '' ? 'requests without a session' : `session ${session}`}` +
    (overrides.length > 0 ? `; ${overrides.join('; ')}` : '; no overrides in force') + '.'
  const list = document.createDocumentFragment()
  for (const route of view.routes) {
    const head = el('h3', {}, el('code', { text: route.key }), ...route.methods.map((m) => el('span', { class: 'tag', text: m })))
    if (route.override) head.append(el('span', { class: 'tag proxy', text: route.override === 'session' ? 'override (this session)' : 'override (everyone)' }))
    const table = el('table')
    table.append(el('thead', {}, el('tr', {}, ...['Method', 'Entry', 'Conditions', 'Answers', 'Sequence'].map((t) => el('th', { scope: 'col', text: t })))))
    const body = el('tbody')
    for (const entry of route.entries) {
      const conditions = el('td')
      if (entry.operation) conditions.append(el('div', { class: 'mono', text: `operation ${entry.operation}` }))
      for (const [name, value] of Object.entries(entry.params ?? {})) conditions.append(el('div', { class: 'mono', text: `param ${name} = ${conditionText(value)}` }))
      for (const [name, value] of Object.entries(entry.requestHeaders ?? {})) conditions.append(el('div', { class: 'mono', text: `header ${name} = ${conditionText(value)}` }))
      if (entry.on) conditions.append(el('div', { class: 'mono', text: `message ${entry.on}` }))
      if (!entry.conditional) conditions.append(el('span', { class: 'count', text: entry.method === 'WS' ? 'on open' : 'default' }))
      else if (conditions.childNodes.length === 0) conditions.append(el('span', { class: 'count', text: 'none' }))
      const sequence = el('td')
      if (entry.sequence) {
        const ol = el('ol')
        entry.sequence.forEach((step, index) => {
          const text = step.fault && step.fault !== 'truncate' ? `fault: ${step.fault}${step.repeat > 1 ? ` ×${step.repeat}` : ''}` : `${step.url ? `redirect ${step.url}` : step.file ?? '(no file)'} · ${step.status}${step.fault ? ' truncate' : ''}${step.repeat > 1 ? ` ×${step.repeat}` : ''}`
          ol.append(el('li', { class: index === entry.next ? 'next' : '', text }))
        })
        sequence.append(el('div', { class: 'count', text: `served ${entry.served}` }), ol)
      }
      body.append(el('tr', {}, el('td', { text: entry.method }), el('td', {}, el('code', { text: entry.label })), conditions, el('td', { class: 'mono', text: answerText(entry) }), sequence))
    }
    table.append(body)
    list.append(el('article', { class: 'route', 'aria-label': `route ${route.key}` }, head, el('div', { class: 'table-wrap' }, table)))
  }
  $('routes').replaceChildren(list)
}

// ---------------------------------------------------------------- config and reload status

function renderConfig() {
  const info = state.info
  if (!info) return
  const grid = el('dl', { class: 'config-grid' })
  const fact = (name, value) => grid.append(el('dt', { text: name }), el('dd', {}, value))
  fact('Config file', el('code', { text: info.configFile ?? '(none: options given in code or flags)' }))
  for (const spec of info.routesFiles) fact('Routes', el('span', {}, el('code', { text: spec.file }), ' — data ', el('code', { text: spec.data })))
  fact('msw handlers', String(info.handlers))
  const reload = info.reload
  fact('Last reload', reload.at ? `${reload.at}${reload.error ? ' — failed' : ' — ok'} (${reload.count} so far)` : 'none since start')
  const parts = [el('h2', { text: 'Files loaded' }), grid]
  if (reload.error) parts.push(el('h2', { text: 'The config is broken' }), el('pre', { class: 'explanation', text: reload.error }))
  parts.push(el('h2', { text: 'In force' }), el('pre', { class: 'body', text: JSON.stringify(info.effective, null, 2) }))
  parts.push(el('h2', { text: 'Options as given' }), el('pre', { class: 'body', text: JSON.stringify(info.options, null, 2) }))
  $('config').replaceChildren(...parts)
  const banner = $('banner')
  if (reload.error) {
    banner.replaceChildren(el('strong', { text: 'The config is broken since the last reload: the last good routes are being served.' }), el('pre', { text: reload.error }))
    banner.hidden = false
  } else banner.hidden = true
}

// ---------------------------------------------------------------- loading and the live feed

/** For each read of the state under way, the records that came meanwhile: those newer than what it holds are kept. */
const arrivals = new Set()

async function loadState() {
  const arrived = []
  arrivals.add(arrived)
  let info
  try {
    info = await getJson('state')
  } finally {
    arrivals.delete(arrived)
  }
  state.info = info
  state.limit = info.log.limit
  // The state is the log as it was when read (`log.lastId`): a record that came since is added.
  state.requests = [...info.requests, ...arrived.filter((record) => record.id > info.log.lastId)]
  if (state.requests.length > state.limit) state.requests.splice(0, state.requests.length - state.limit)
  for (const session of info.sessions) state.sessions.add(session)
  // A request open in full that left the log (a reset) closes with it.
  if (state.selected !== null && !state.requests.some((record) => record.id === state.selected)) closeDetail()
  refreshSessions()
  renderRequests()
  renderConfig()
  if (state.view === 'routes') void renderRoutes()
}

let source
let resyncing = false
/** A resync asked for while one runs (a reset during the reload): it runs again after. */
let resyncAgain = false
/**
 * Reads the state, one read at a time, the first load included: an older read answered after a
 * newer one would replace it, and lose what was logged between the two (the event stream sends
 * only what came after it joined). A read that fails while another was asked for is followed by
 * that one, not dropped with it.
 */
async function resync() {
  if (resyncing) {
    resyncAgain = true
    return
  }
  resyncing = true
  try {
    do {
      resyncAgain = false
      try {
        await loadState()
      } catch (error) {
        if (!resyncAgain) throw error
      }
    } while (resyncAgain)
  } finally {
    resyncing = false
  }
}

function connect() {
  source = new EventSource(API + 'events')
  const live = $('live')
  source.addEventListener('open', () => {
    live.textContent = 'live'
    live.className = 'live on'
  })
  source.addEventListener('hello', () => void resync())
  source.addEventListener('requests', (event) => {
    addRequests(JSON.parse(event.data))
    if (state.view === 'routes') scheduleRoutes()
  })
  source.addEventListener('cleared', () => void resync())
  source.addEventListener('resync', () => void resync())
  source.addEventListener('reload', () => void resync())
  source.addEventListener('error', () => {
    live.textContent = 'disconnected: retrying…'
    live.className = 'live off'
  })
}

let routesTimer
function scheduleRoutes() {
  clearTimeout(routesTimer)
  routesTimer = setTimeout(() => void renderRoutes(), 300)
}

// ---------------------------------------------------------------- controls

async function reset(session) {
  const headers = session === undefined ? {} : { 'x-mockyard-session': session }
  const response = await fetch('reset', { method: 'POST', headers })
  if (!response.ok) {
    $('live').textContent = `reset failed: ${response.status}`
    return
  }
  if (session === undefined) {
    state.sessions.clear()
    const select = $('f-session')
    for (const option of [...select.options]) if (option.value !== '*') option.remove()
  }
  closeDetail()
  await resync()
}

function selectTab(name, focus = false) {
  state.view = name
  for (const tab of document.querySelectorAll('[role=tab]')) {
    const on = tab.id === `tab-${name}`
    tab.setAttribute('aria-selected', on ? 'true' : 'false')
    tab.tabIndex = on ? 0 : -1
    if (on && focus) tab.focus()
    $(tab.getAttribute('aria-controls')).hidden = !on
  }
  // Filters only where they act: the request filters on the list; the session also picks the
  // route table's positions; the config has none. The reset buttons stay on every view.
  for (const node of document.querySelectorAll('#filters .requests-only')) node.hidden = name !== 'requests'
  $('f-session').closest('label').hidden = name === 'config'
  if (name === 'routes') void renderRoutes()
  if (name === 'config') renderConfig()
}

function bind() {
  $('filters').addEventListener('submit', (event) => event.preventDefault())
  for (const id of ['f-path', 'f-status', 'f-unmatched']) $(id).addEventListener('input', renderRequests)
  $('f-session').addEventListener('change', () => {
    refreshSessions()
    renderRequests()
    if (state.view === 'routes') void renderRoutes()
  })
  $('reset-all').addEventListener('click', () => void reset(undefined))
  $('reset-session').addEventListener('click', () => {
    const session = $('f-session').value
    if (session !== '*' && session !== '') void reset(session)
  })
  $('detail-close').addEventListener('click', closeDetail)
  $('detail').addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closeDetail()
  })

  const tbody = $('requests').tBodies[0]
  tbody.addEventListener('click', (event) => {
    const row = event.target.closest('tr.row')
    if (row) void openDetail(Number(row.dataset.id), false)
  })
  tbody.addEventListener('keydown', (event) => {
    const row = event.target.closest('tr.row')
    if (!row) return
    const rows = [...tbody.querySelectorAll('tr.row')]
    const index = rows.indexOf(row)
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault()
      void openDetail(Number(row.dataset.id))
    } else if (event.key === 'ArrowDown' && index < rows.length - 1) {
      event.preventDefault()
      rows[index + 1].focus()
    } else if (event.key === 'ArrowUp' && index > 0) {
      event.preventDefault()
      rows[index - 1].focus()
    } else if (event.key === 'Escape' && state.selected !== null) closeDetail()
  })

  const tabs = [...document.querySelectorAll('[role=tab]')]
  for (const tab of tabs) {
    tab.addEventListener('click', () => selectTab(tab.id.slice(4)))
    tab.addEventListener('keydown', (event) => {
      const index = tabs.indexOf(tab)
      if (event.key === 'ArrowRight') selectTab(tabs[(index + 1) % tabs.length].id.slice(4), true)
      else if (event.key === 'ArrowLeft') selectTab(tabs[(index + tabs.length - 1) % tabs.length].id.slice(4), true)
    })
  }
}

bind()
resync().catch((error) => {
  $('count').textContent = `The dashboard did not load: ${error.message}`
})
connect()
