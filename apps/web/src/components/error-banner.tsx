import { createContext, useContext, useSyncExternalStore } from 'react'
import { TOKEN_ERROR_CODES } from '../api/api-token.ts'
import { ApiError } from '../api/client.ts'

/** An error as the banner shows it. */
export interface BannerError {
  code: string
  message: string
  reqId?: string | undefined
}

/** Errors waiting to be read; fed by react-query's caches and by components. */
export interface ErrorStore {
  /** Shows an error (an ApiError keeps its code and request id). An error already shown is not repeated. */
  report(err: unknown): void
  dismiss(error: BannerError): void
  subscribe(listener: () => void): () => void
  getSnapshot(): readonly BannerError[]
}

/** Turns anything thrown into a banner error. */
export function toBannerError(err: unknown): BannerError {
  if (err instanceof ApiError) return { code: err.code, message: err.message, reqId: err.reqId }
  const e = err as { code?: unknown; message?: unknown } | null
  return {
    code: typeof e?.code === 'string' ? e.code : 'UNEXPECTED',
    message: typeof e?.message === 'string' ? e.message : String(err),
  }
}

// A banner shows the last few errors only: a flapping server must not bury the page.
const MAX_SHOWN = 3

/** Creates the error store (one per app; created outside React so react-query can report into it). */
export function createErrorStore(): ErrorStore {
  let errors: readonly BannerError[] = []
  const listeners = new Set<() => void>()
  const set = (next: readonly BannerError[]) => {
    errors = next
    for (const l of listeners) l()
  }
  return {
    report(err) {
      const next = toBannerError(err)
      if (errors.some((e) => e.code === next.code && e.message === next.message)) return
      set([...errors, next].slice(-MAX_SHOWN))
    },
    dismiss(error) {
      set(errors.filter((e) => e !== error))
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    getSnapshot: () => errors,
  }
}

/** Provides the app's error store to the banner and to components that report errors. */
export const ErrorStoreContext = createContext<ErrorStore | null>(null)

function useErrorStore(): ErrorStore {
  const store = useContext(ErrorStoreContext)
  if (!store) throw new Error('ErrorStoreContext is not provided')
  return store
}

/** The error reporting function of the app's error store. */
export function useReportError(): (err: unknown) => void {
  return useErrorStore().report
}

/** The dismissible error banners, rendered once at the top of the page content. */
export function ErrorBanner() {
  const store = useErrorStore()
  const errors = useSyncExternalStore(store.subscribe, store.getSnapshot)
  if (errors.length === 0) return null
  return (
    <div className="banners">
      {errors.map((e) => (
        <div className="banner banner-error" role="alert" key={`${e.code}:${e.message}`}>
          <span className="banner-code">{e.code}</span>
          <span className="banner-message">{e.message}</span>
          {e.reqId && <span className="banner-req num">req {e.reqId}</span>}
          {TOKEN_ERROR_CODES.has(e.code) && (
            <span className="banner-hint">Paste the token in the banner above, then try again.</span>
          )}
          <button
            type="button"
            className="banner-close"
            aria-label="Dismiss error"
            onClick={() => store.dismiss(e)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  )
}
