import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { captureApiTokenFromUrl } from './api/api-token.ts'
import { ApiError } from './api/client.ts'
import { App } from './app.tsx'
import { createErrorStore, ErrorStoreContext } from './components/error-banner.tsx'
import './styles/theme.css'
import './styles/app.css'

captureApiTokenFromUrl(window.location, window.history)

const errors = createErrorStore()
const queryClient = new QueryClient({
  // Every failed query or mutation lands in the banner with its code; the health check has its own indicator.
  queryCache: new QueryCache({
    onError: (err, query) => query.queryKey[0] !== 'health' && errors.report(err),
  }),
  mutationCache: new MutationCache({ onError: (err) => errors.report(err) }),
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
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </ErrorStoreContext.Provider>
  </StrictMode>,
)
