#!/usr/bin/env node
// `npm start`: build what changed, then run the server. A cold build takes about a minute on two
// cores and its tools print little, so this prints which package is building and a line every
// 5 s, and a warm start stays quiet. The server's own exit code is passed on (2: port in use).
import { spawn } from 'node:child_process'

const started = Date.now()
const seconds = () => Math.round((Date.now() - started) / 1000)
let building = []
let lastLine = Date.now()
const say = (line) => {
  process.stdout.write(`${line}\n`)
  lastLine = Date.now()
}

// hash-only: one line per task as it starts ("@codebook/web:build: cache miss, executing …").
const turbo = spawn('npx', ['turbo', 'run', 'build', '--output-logs=hash-only'], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
turbo.stdout.setEncoding('utf8')
let pending = ''
turbo.stdout.on('data', (chunk) => {
  pending += chunk
  const lines = pending.split('\n')
  pending = lines.pop() ?? ''
  for (const line of lines) {
    const miss = /(@codebook\/[\w-]+):build: cache miss/.exec(line)
    if (miss) {
      building.push(miss[1])
      say(`building ${miss[1]}…`)
    }
  }
})
const ticker = setInterval(() => {
  if (building.length > 0 && Date.now() - lastLine >= 4500) say(`  still building (${seconds()} s)…`)
}, 1000)

turbo.on('exit', (code) => {
  clearInterval(ticker)
  if (code !== 0) {
    // hash-only hides a failing task's output: build again (finished tasks are cached) to show it.
    spawn('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { stdio: 'inherit' }).on(
      'exit',
      () => {
        process.stderr.write(`npm start: the build failed (exit ${code}); the errors are above.\n`)
        process.exit(code ?? 1)
      },
    )
    return
  }
  if (building.length > 0) say(`built ${building.length} package(s) in ${seconds()} s; starting the server…`)
  building = []
  const server = spawn(process.execPath, ['apps/server/dist/main.js'], { stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal))
  server.on('exit', (c, signal) => process.exit(signal ? 1 : (c ?? 1)))
})
