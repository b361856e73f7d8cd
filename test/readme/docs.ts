/**
 * The documents that ship with the package (README.md and every Markdown file under docs/), their
 * code blocks and their relative links, for the tests that run the snippets and check the links
 * (test/readme/*.test.ts) and for the packaging test, which checks that the tarball holds every
 * file they link to.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The shipped Markdown files, relative to the package root: README.md first, then docs/*.md. */
export function shippedDocs(root = ROOT): string[] {
  const guides = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file))
    .sort()
  return ['README.md', ...guides]
}

/** The text of a shipped document. */
export function readDoc(file: string, root = ROOT): string {
  return readFileSync(join(root, file), 'utf8')
}

/** A fenced code block: its language, its first line (often `// file.ts`) and its text. */
export interface CodeBlock {
  doc: string
  lang: string
  code: string
}

/** Every fenced code block of a document, in order. */
export function codeBlocks(doc: string, root = ROOT): CodeBlock[] {
  return [...readDoc(doc, root).matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({ doc, lang: match[1]!, code: match[2]! }))
}

/** The Markdown outside code blocks (links inside code are code, not links). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '')
}

/** A relative link of a document: as written, and the file it points at from the package root. */
export interface RelativeLink {
  doc: string
  href: string
  target: string
}

/** Every relative link (`[text](path)`, `![alt](path)`) of a document; anchors and URLs left out. */
export function relativeLinks(doc: string, root = ROOT): RelativeLink[] {
  const links: RelativeLink[] = []
  for (const match of prose(readDoc(doc, root)).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const href = match[1]!
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('#')) continue
    const path = href.split('#')[0]!
    links.push({ doc, href, target: normalize(relative(root, join(root, dirname(doc), decodeURIComponent(path)))) })
  }
  return links
}

/** The anchors of a document's headings, as GitHub and npm make them. */
export function headingAnchors(doc: string, root = ROOT): Set<string> {
  const anchors = new Set<string>()
  for (const match of readDoc(doc, root).replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    anchors.add(
      match[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    )
  }
  return anchors
}
