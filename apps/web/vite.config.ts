import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// In development Vite serves the UI and proxies the API and socket.io to the server on :8080.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', sourcemap: true },
  server: {
    proxy: {
      '/api': 'http://localhost:8080',
      '/files': 'http://localhost:8080',
      '/socket.io': { target: 'http://localhost:8080', ws: true },
    },
  },
})
