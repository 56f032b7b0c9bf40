// Runs the CLI from source for spawn tests: `node --conditions=@codebook/source --import tsx run-cli.ts ARGS…`.
import { main } from '../../cli/main.ts'

process.exitCode = await main(process.argv.slice(2))
