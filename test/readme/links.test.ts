/**
 * The README and the guides under docs/ ship in the package, and read there as on a repository
 * page: every relative link points at a file the package ships (`npm pack`'s list, so a link to a
 * file left out of `files` fails), and every `#anchor` at a heading of its page. The packaging test
 * checks the same links against the tarball packed from a clean clone.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { headingAnchors, relativeLinks, ROOT, shippedDocs } from './docs.js'

let shipped: Set<string>

beforeAll(() => {
  // --ignore-scripts: the list of files, without building dist/ (no link points into it).
  const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as Array<{ files: Array<{ path: string }> }>
  shipped = new Set(packed[0]!.files.map((file) => file.path))
}, 60_000)

describe('the links of the README and the guides', () => {
  const docs = shippedDocs()

  it('the guides are the ones the README lists, and all of them ship', () => {
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/behaviour.md', 'docs/migration.md', 'docs/playwright.md', 'docs/routes.md', 'docs/options.md']))
    expect(docs.filter((doc) => !shipped.has(doc))).toEqual([])
    // Reachable from the README: linked from it, or from a guide it links to (a runner's guide from the Vitest one).
    const linkedFromReadme = new Set<string>()
    const visit = (doc: string) => {
      for (const { target } of relativeLinks(doc)) {
        if (linkedFromReadme.has(target) || !docs.includes(target)) continue
        linkedFromReadme.add(target)
        visit(target)
      }
    }
    visit('README.md')
    expect(docs.filter((doc) => doc !== 'README.md' && !linkedFromReadme.has(doc))).toEqual([])
  })

  it('every relative link points at a file the package ships', () => {
    const links = docs.flatMap((doc) => relativeLinks(doc))
    expect(links.length).toBeGreaterThan(30)
    expect(links.filter((link) => !existsSync(join(ROOT, link.target)) || !shipped.has(link.target)).map((link) => `${link.doc}: ${link.href}`)).toEqual([])
  })

  it('every #anchor names a heading of the page it points at', () => {
    const broken: string[] = []
    let checked = 0
    for (const doc of docs) {
      const text = readFileSync(join(ROOT, doc), 'utf8').replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, (code) => code.replace(/[[\]()]/g, ''))
      for (const match of text.matchAll(/\]\(([^)\s]*)#([^)\s]+)\)/g)) {
        const [, path, anchor] = match
        const target = path ? relativeLinks(doc).find((link) => link.href === `${path}#${anchor}`)?.target : doc
        checked++
        if (!target || !headingAnchors(target).has(anchor!)) broken.push(`${doc}: ${path}#${anchor}`)
      }
    }
    expect(broken).toEqual([])
    expect(checked).toBeGreaterThan(4)
  })

  it('the contributor documents (ARCHITECTURE.md, decisions/) link only to files that exist, and every decision is in the index', () => {
    const decisions = readdirSync(join(ROOT, 'decisions')).filter((name) => name.endsWith('.md'))
    const contributorDocs = ['ARCHITECTURE.md', ...decisions.map((name) => `decisions/${name}`)]
    const links = contributorDocs.flatMap((doc) => relativeLinks(doc))
    expect(links.filter((link) => !existsSync(join(ROOT, link.target))).map((link) => `${link.doc}: ${link.href}`)).toEqual([])
    expect(links.some((link) => link.doc === 'ARCHITECTURE.md' && link.target === 'decisions/README.md')).toBe(true)
    const indexed = new Set(relativeLinks('decisions/README.md').map((link) => link.target))
    expect(decisions.filter((name) => name !== 'README.md' && !indexed.has(`decisions/${name}`))).toEqual([])
  })

  it('no shipped document points outside the package (ARCHITECTURE.md, tests and bench stay in the repository)', () => {
    const outside = docs.flatMap((doc) => relativeLinks(doc)).filter((link) => !/^(docs\/|README\.md|mocks\/|schema\/|static\/|src\/)/.test(link.target))
    expect(outside.map((link) => `${link.doc}: ${link.href}`)).toEqual([])
  })
})
