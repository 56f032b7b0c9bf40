#!/usr/bin/env node
// The published entry point runs the compiled CLI; `npm run build` produces dist/.
import '../dist/cli/entry.js'
