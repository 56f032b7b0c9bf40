import { exitQuietlyWhenStdoutCloses, main } from './main.ts'

// The process entry of `codebook` (bin/codebook.js runs the compiled copy).
exitQuietlyWhenStdoutCloses()
process.exitCode = await main(process.argv.slice(2))
