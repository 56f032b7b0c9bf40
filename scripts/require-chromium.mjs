#!/usr/bin/env node
// `npm test` runs this first: the end-to-end tests need a real Chromium, and finding out after
// the build and every other package's tests wastes minutes. One line says how to get it.
import { accessSync, constants } from 'node:fs'

const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
try {
  accessSync(path, constants.X_OK)
} catch {
  console.error(
    `npm test needs Chromium at ${path}: install it with \`sudo apt-get install chromium\` (Debian/Ubuntu) or set CHROMIUM_PATH to a Chromium binary.`,
  )
  process.exit(1)
}
