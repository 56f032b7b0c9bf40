import { defineConfig } from 'drizzle-kit'

// Migrations are generated offline from the schema (no database needed) and run at start-up by the server.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
})
