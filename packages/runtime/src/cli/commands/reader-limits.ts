import { type Command, Option } from 'commander'
import { DEFAULT_MAX_FIELDS, DEFAULT_MAX_LINE_BYTES, type ReaderLimits } from '../../formats/limits.ts'
import { byteSize, positiveInt } from './parse-options.ts'

/** Adds `--max-line-bytes`, `--max-fields` and `--max-expanded-bytes` (commander names them as `ReaderLimits` does). */
export function addReaderLimitOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--max-line-bytes <size>',
        `longest text line accepted, e.g. 4MB (default ${DEFAULT_MAX_LINE_BYTES / 1024 / 1024} MiB)`,
      ).argParser(byteSize('--max-line-bytes')),
    )
    .addOption(
      new Option('--max-fields <n>', `most fields on a text line (default ${DEFAULT_MAX_FIELDS})`).argParser(
        positiveInt('--max-fields'),
      ),
    )
    .addOption(
      new Option(
        '--max-expanded-bytes <size>',
        'fail when a gzip input decompresses to more than this, e.g. 20GB (default: no limit)',
      ).argParser(byteSize('--max-expanded-bytes')),
    )
}

/** The reader limits among parsed command options (only those given). */
export function readerLimits(options: ReaderLimits): ReaderLimits {
  const { maxLineBytes, maxFields, maxExpandedBytes } = options
  return { maxLineBytes, maxFields, maxExpandedBytes }
}
