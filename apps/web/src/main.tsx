import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { captureApiTokenFromUrl, TOKEN_ERROR_CODES } from './api/api-token.ts'
import { ApiError, checkApiToken } from './api/client.ts'
import { createTokenStatusStore, NOT_DONE_WITHOUT_TOKEN } from './api/token-status.ts'
import { App } from './app.tsx'
import { createErrorStore, ErrorStoreContext } from './components/error-banner.tsx'
import { isInlineError } from './components/inline-error.tsx'
import { TokenStatusContext } from './components/token-banner.tsx'
import './styles/theme.css'
import './styles/app.css'

captureApiTokenFromUrl(window.location, window.history)

const errors = createErrorStore()
// Known before any write: no token → the read-only banner; a stored one is checked once.
const tokenStatus = createTokenStatusStore(checkApiToken)
void tokenStatus.checkStored()
/**
 * Reports an error to the banner. A 401 of a write turns the token banner on instead (said once,
 * there); an error its form shows inline (`meta: INLINE_ERROR`) stays out of the banner.
 */
function reportError(err: unknown, inline = false) {
  if (err instanceof ApiError && TOKEN_ERROR_CODES.has(err.code)) {
    // A form showing its errors says it in place; for a button the token banner says what was not done.
    tokenStatus.reportRefusal(err.code, inline ? undefined : NOT_DONE_WITHOUT_TOKEN)
    return
  }
  if (!inline) errors.report(err)
}
const queryClient = new QueryClient({
  // Every failed query or mutation lands in the banner with its code; the health check has its own indicator.
  queryCache: new QueryCache({
    onError: (err, query) => query.queryKey[0] !== 'health' && reportError(err),
  }),
  mutationCache: new MutationCache({
    onError: (err, _vars, _context, mutation) => reportError(err, isInlineError(mutation.options.meta)),
  }),
  defaultOptions: {
    queries: {
      // Retrying a coded answer (404, 400) only delays the message; retry only when the server was unreachable.
      retry: (count, err) => err instanceof ApiError && err.code === 'NETWORK_ERROR' && count < 2,
      refetchOnWindowFocus: true,
    },
  },
})

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorStoreContext.Provider value={errors}>
      <TokenStatusContext.Provider value={tokenStatus}>
        <QueryClientProvider client={queryClient}>
          <App />
        </QueryClientProvider>
      </TokenStatusContext.Provider>
    </ErrorStoreContext.Provider>
  </StrictMode>,
)
