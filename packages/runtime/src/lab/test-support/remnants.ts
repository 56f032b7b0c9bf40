import { execFileSync } from 'node:child_process'

/** Every trace of lab `id` the system shows (namespaces, links, routes), found without the lab's own code. */
export function labRemnants(id: number): string[] {
  const out = [
    ...execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n'),
    ...execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).split('\n'),
    ...execFileSync('ip', ['route', 'show'], { encoding: 'utf8' }).split('\n'),
  ]
  return out.filter((l) => l.includes(`cb${id}-`) || l.includes(`10.213.${32 * id}.`))
}
