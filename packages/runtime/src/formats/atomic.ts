import { randomBytes } from 'node:crypto'
import { rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** A hidden, unique sibling of `target` in the same directory, so a rename onto `target` is atomic. */
export function tempSibling(target: string): string {
  // Unique name, not data randomness: crypto is fine here (createRng is for reproducible computation).
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`)
}

/**
 * Runs `write(tmp)` on a temporary sibling of `file` and renames it onto `file` on success;
 * on any failure the temporary is removed and the error rethrown, so nothing is left behind.
 */
export async function writeAtomically(file: string, write: (tmp: string) => Promise<void>): Promise<void> {
  const tmp = tempSibling(file)
  try {
    await write(tmp)
    await rename(tmp, file)
  } catch (err) {
    await rm(tmp, { force: true, recursive: true })
    throw err
  }
}
