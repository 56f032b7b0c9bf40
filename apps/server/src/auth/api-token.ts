import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CodebookError } from '@codebook/runtime/errors'

/** Where the server's API token came from. */
export type ApiTokenSource = 'env' | 'file' | 'created'

/** The token every write must present, and where it is kept. */
export interface ApiToken {
  token: string
  source: ApiTokenSource
  /** `$CODEBOOK_HOME/api-token`: the generated token (unused when the environment sets one). */
  file: string
}

/** File name of the generated token inside the data home. */
export const API_TOKEN_FILE = 'api-token'

/**
 * The configured token (CODEBOOK_API_TOKEN) if any; otherwise the one generated at the home's first
 * start and kept in `$CODEBOOK_HOME/api-token` (mode 0600), generated now when missing.
 */
export async function resolveApiToken(home: string, configured: string | undefined): Promise<ApiToken> {
  const file = join(home, API_TOKEN_FILE)
  if (configured !== undefined) return { token: configured, source: 'env', file }
  try {
    const stored = (await readFile(file, 'utf8')).trim()
    if (stored.length > 0) return { token: stored, source: 'file', file }
    throw new CodebookError('API_TOKEN_FILE_EMPTY', `${file} is empty; delete it to generate a new token`)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const token = randomBytes(24).toString('base64url')
  // 'wx': never overwrite a token another process wrote in between (the home is locked, but be exact).
  await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' })
  return { token, source: 'created', file }
}

const digest = (text: string) => createHash('sha256').update(text).digest()

/** Constant-time comparison (hashing first makes the lengths equal). */
export function tokenMatches(expected: string, presented: string): boolean {
  return timingSafeEqual(digest(expected), digest(presented))
}
