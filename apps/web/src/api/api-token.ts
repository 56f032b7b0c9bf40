/**
 * The server's API token as this browser knows it. Writes send it as `Authorization: Bearer …`;
 * reads need none. It arrives once through the link the server prints at its first start
 * (`/?token=…`) or is pasted into the banner after a 401, and is kept in localStorage.
 */

const STORAGE_KEY = 'codebook.apiToken'

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage
  } catch {
    return null
  }
}

/** The stored token, or null. */
export function getApiToken(): string | null {
  return storage()?.getItem(STORAGE_KEY) ?? null
}

/** Stores a token (trimmed); an empty one removes it. */
export function setApiToken(token: string): void {
  const trimmed = token.trim()
  if (trimmed === '') storage()?.removeItem(STORAGE_KEY)
  else storage()?.setItem(STORAGE_KEY, trimmed)
}

/** `{ authorization }` when a token is known, else nothing. */
export function authorizationHeader(): Record<string, string> {
  const token = getApiToken()
  return token === null ? {} : { authorization: `Bearer ${token}` }
}

/**
 * Moves a `?token=` query parameter into storage and removes it from the address bar, so the
 * token is neither bookmarked nor sent on in a Referer.
 */
export function captureApiTokenFromUrl(location: Location, history: History): void {
  const url = new URL(location.href)
  const token = url.searchParams.get('token')
  if (token === null) return
  setApiToken(token)
  url.searchParams.delete('token')
  history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`)
}

/** Error codes the server answers a write with when the token is missing or wrong. */
export const TOKEN_ERROR_CODES: ReadonlySet<string> = new Set(['UNAUTHORIZED', 'INVALID_TOKEN'])
