import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { captureApiTokenFromUrl } from './api/api-token.ts'
import { ApiError, checkApiToken } from './api/client.ts'
import { createTokenStatusStore } from './api/token-status.ts'
import { App } from './app.tsx'
import { createErrorStore, ErrorStoreContext } from './components/error-banner.tsx'
import { TokenStatusContext } from './components/token-banner.tsx'
import './styles/theme.css'
import './styles/app.css'

captureApiTokenFromUrl(window.location, window.history)

const errors = createErrorStore()
// Known before any write: no token → the read-only banner; a stored one is checked once.
const tokenStatus = createTokenStatusStore(checkApiToken)
void tokenStatus.checkStored()
/** Reports an error to the banner; a 401 of a write also turns the token banner on. */
function reportError(err: unknown) {
  if (err instanceof ApiError) tokenStatus.reportRefusal(err.code, err.message)
  errors.report(err)
}
const queryClient = new QueryClient({
  // Every failed query or mutation lands in the banner with its code; the health check has its own indicator.
  queryCache: new QueryCache({
    onError: (err, query) => query.queryKey[0] !== 'health' && reportError(err),
  }),
  mutationCache: new MutationCache({ onError: reportError }),
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
