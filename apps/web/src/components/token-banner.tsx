import { createContext, useContext, useState, useSyncExternalStore } from 'react'
import type { TokenStatusStore } from '../api/token-status.ts'

/** Provides the app's token status store (created in main.tsx). */
export const TokenStatusContext = createContext<TokenStatusStore | null>(null)

/** The app's token status store. */
export function useTokenStatusStore(): TokenStatusStore {
  const store = useContext(TokenStatusContext)
  if (!store) throw new Error('TokenStatusContext is not provided')
  return store
}

const WHERE =
  'The server prints it as a /?token=… link when it starts and keeps it in CODEBOOK_HOME/api-token.'

/**
 * The read-only banner, on every page while this browser has no accepted API token: says so
 * before any write is tried, and takes a pasted token, which the server checks before it is kept.
 */
export function TokenBanner() {
  const store = useTokenStatusStore()
  const status = useSyncExternalStore(store.subscribe, store.getSnapshot)
  // `checking` is the start check of a stored token: say nothing until it is known.
  if (status.state === 'valid' || status.state === 'checking') return null
  const heading =
    status.state === 'rejected'
      ? 'Read-only — the API token is not accepted.'
      : status.state === 'unknown'
        ? 'The API token could not be checked.'
        : 'Read-only — this browser has no API token.'
  return (
    <section className="banner banner-token" aria-label="API token" data-token-state={status.state}>
      <div className="banner-token-text">
        <strong>{heading}</strong>{' '}
        <span>You can look at everything; uploads, runs, deletes and saves need the token. {WHERE}</span>
        {status.message && (
          <div className="banner-token-reason" data-testid="token-reason">
            {status.message}
          </div>
        )}
      </div>
      <TokenForm store={store} />
    </section>
  )
}

function TokenForm(props: { store: TokenStatusStore }) {
  const [token, setToken] = useState('')
  const [busy, setBusy] = useState(false)
  return (
    <form
      className="token-form"
      onSubmit={(event) => {
        event.preventDefault()
        setBusy(true)
        void props.store.paste(token).then((ok) => {
          setBusy(false)
          if (ok) setToken('')
        })
      }}
    >
      <input
        type="password"
        aria-label="API token"
        placeholder="Paste the API token"
        autoComplete="off"
        value={token}
        onChange={(event) => setToken(event.target.value)}
      />
      <button type="submit" className="btn" disabled={busy}>
        {busy ? 'Checking…' : 'Use token'}
      </button>
    </form>
  )
}
