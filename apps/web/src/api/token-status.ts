import { getApiToken, setApiToken, TOKEN_ERROR_CODES } from './api-token.ts'

/**
 * What this browser knows about its API token: `missing` (none stored: read-only), `checking`,
 * `valid` (the server accepted it), `rejected` (the server refused it: wrong, or the server's
 * token changed), `unknown` (stored, but the check could not reach the server).
 */
export type TokenState = 'missing' | 'checking' | 'valid' | 'rejected' | 'unknown'

/** The token status as the banner shows it. */
export interface TokenStatus {
  state: TokenState
  /** Why a pasted or stored token was refused, or why it could not be checked. */
  message: string | null
}

/** Asks the server whether a token is its own: resolves when accepted, throws `{ code, message }` when not. */
export type TokenCheck = (token: string) => Promise<void>

/** The app's token status: starts from storage, checked against the server, updated by 401s. */
export interface TokenStatusStore {
  getSnapshot(): TokenStatus
  subscribe(listener: () => void): () => void
  /** Checks the stored token (at start); without one the status is `missing`, no request made. */
  checkStored(): Promise<void>
  /**
   * Checks a pasted token first and stores it only when the server accepts it; a refused one is
   * not stored and its reason is in the status. Resolves to whether it was accepted.
   */
  paste(token: string): Promise<boolean>
  /**
   * A write was refused with `code`: 401 `UNAUTHORIZED` / `INVALID_TOKEN` → `missing` / `rejected`.
   * `reason` (plain words, e.g. {@link NOT_DONE_WITHOUT_TOKEN}) is shown without a token when the
   * refused control does not say it itself.
   */
  reportRefusal(code: string, reason?: string): void
}

/** Why the banner is back after a write was refused with the stored token. */
export const REFUSED_STORED =
  'A change was just refused: the token kept in this browser is not this server’s (it may have been replaced). Paste the current one.'

/** What the banner adds when a button's change was refused for want of a token. */
export const NOT_DONE_WITHOUT_TOKEN = 'That change was not made: it needs the API token.'

/** A stored token the server does not accept, in words. */
const STORED_NOT_ACCEPTED =
  'The token kept in this browser is not this server’s (it may have been replaced). Paste the current one.'

/** A refused paste, in words. */
const REFUSED_PASTE = 'That token was refused — it is not this server’s API token.'

function codeOf(err: unknown): { code: string; message: string } {
  const e = err as { code?: unknown; message?: unknown } | null
  return {
    code: typeof e?.code === 'string' ? e.code : 'UNEXPECTED',
    message: typeof e?.message === 'string' ? e.message : String(err),
  }
}

/** Creates the store over the server check `check` (the app passes `POST /api/token/check`). */
export function createTokenStatusStore(check: TokenCheck): TokenStatusStore {
  let status: TokenStatus = { state: getApiToken() === null ? 'missing' : 'checking', message: null }
  const listeners = new Set<() => void>()
  const set = (next: TokenStatus) => {
    status = next
    for (const l of listeners) l()
  }
  /** The outcome of one server check of `token`, as a status. */
  async function verdict(token: string): Promise<TokenStatus> {
    try {
      await check(token)
      return { state: 'valid', message: null }
    } catch (err) {
      const { code, message } = codeOf(err)
      if (TOKEN_ERROR_CODES.has(code)) return { state: 'rejected', message: STORED_NOT_ACCEPTED }
      return { state: 'unknown', message: `Could not check the token (${code}: ${message})` }
    }
  }
  return {
    getSnapshot: () => status,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async checkStored() {
      const token = getApiToken()
      if (token === null) return set({ state: 'missing', message: null })
      set({ state: 'checking', message: null })
      set(await verdict(token))
    },
    async paste(token) {
      if (token.trim() === '') {
        set({ state: status.state, message: 'Paste a token first' })
        return false
      }
      // The status stays as it was while a paste is checked: the banner (and its field) stay up.
      const next = await verdict(token)
      if (next.state === 'valid') setApiToken(token)
      // A refused paste leaves what was stored; the banner says why.
      set(next.state === 'rejected' ? { ...next, message: REFUSED_PASTE } : next)
      return next.state === 'valid'
    },
    reportRefusal(code, reason) {
      if (!TOKEN_ERROR_CODES.has(code)) return
      // Said once, in plain words: without a token the heading says why; `reason` what was not done.
      if (getApiToken() === null) return set({ state: 'missing', message: reason ?? null })
      set({ state: 'rejected', message: REFUSED_STORED })
    },
  }
}
