import react from '@vitejs/plugin-react'
import { defaultClientConditions, defineConfig } from 'vite'

// The '@codebook/source' condition makes Vite read workspace packages (@codebook/shared) from their
// TypeScript sources, so the web build neither waits for nor goes stale against their dist.
// In development Vite serves the UI and proxies the API, tus uploads and socket.io to the server on :8080.
export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['@codebook/source', ...defaultClientConditions] },
  // The lazily loaded detail chunk is mostly ECharts (tree-shaken to bar + line) at ~540 kB; that is expected.
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 600 },
  server: {
    proxy: {
      '/api': 'http://localhost:8080',
      '/files': 'http://localhost:8080',
      '/socket.io': { target: 'http://localhost:8080', ws: true },
    },
  },
})
