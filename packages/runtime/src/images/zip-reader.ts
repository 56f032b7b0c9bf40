import yauzl, { type Entry, type ZipFile } from 'yauzl'
import { CodebookError } from '../errors.ts'

/** One file (not folder) entry of a zip archive. */
export interface ZipFileEntry {
  /** Path inside the archive, `/`-separated, checked to stay inside it. */
  name: string
  /** Uncompressed size in bytes (as the central directory declares it; checked while reading). */
  size: number
}

/** Largest entry read into memory (an image of a class folder is far smaller; this stops zip bombs). */
export const MAX_ZIP_ENTRY_BYTES = 256 * 1024 * 1024

/**
 * A zip archive opened for random access (yauzl over the file: only the central directory and
 * the entries asked for are read, so large archives never sit in memory). Close it when done.
 */
export interface ZipArchive {
  /** File entries in archive order (folder entries are left out). */
  readonly entries: readonly ZipFileEntry[]
  /** The uncompressed bytes of `name`. Throws `ZIP_ENTRY_NOT_FOUND`, `BAD_ZIP` (corrupt data), `ZIP_ENTRY_TOO_LARGE`. */
  read(name: string): Promise<Buffer>
  close(): void
}

/**
 * Opens `file` as a zip and reads its central directory.
 *
 * Throws `FILE_NOT_FOUND` for a missing file, `BAD_ZIP` naming the file when it is not a readable
 * zip (or an entry is encrypted or uses an unsupported compression), and `ZIP_UNSAFE_PATH` naming
 * the entry when a path is absolute or climbs out of the archive (`../x.png`, "zip slip").
 */
export async function openZipArchive(file: string): Promise<ZipArchive> {
  const zip = await new Promise<ZipFile>((resolve, reject) => {
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false },
      (err, z) => {
        if (err) reject(openError(file, err))
        else resolve(z)
      },
    )
  })
  let byName: Map<string, Entry>
  try {
    byName = await readCentralDirectory(file, zip)
  } catch (err) {
    zip.close()
    throw err
  }
  const entries = [...byName.values()].map((e) => ({ name: e.fileName, size: e.uncompressedSize }))
  return {
    entries,
    read: (name) => {
      const entry = byName.get(name)
      if (entry === undefined)
        return Promise.reject(new CodebookError('ZIP_ENTRY_NOT_FOUND', `${file}: no entry '${name}'`))
      return readEntry(file, zip, entry)
    },
    close: () => zip.close(),
  }
}

function openError(file: string, err: Error & { code?: string }): CodebookError {
  if (err.code === 'ENOENT') return new CodebookError('FILE_NOT_FOUND', `${file}: no such file`)
  return new CodebookError('BAD_ZIP', `${file}: not a readable zip archive (${err.message})`, { cause: err })
}

function readCentralDirectory(file: string, zip: ZipFile): Promise<Map<string, Entry>> {
  return new Promise((resolve, reject) => {
    const byName = new Map<string, Entry>()
    zip.on('entry', (entry: Entry) => {
      if (!entry.fileName.endsWith('/')) {
        if (entry.isEncrypted() || !entry.canDecodeFileData()) {
          reject(
            new CodebookError(
              'BAD_ZIP',
              `${file}: entry '${entry.fileName}' is encrypted or uses an unsupported compression method`,
            ),
          )
          return
        }
        byName.set(entry.fileName, entry)
      }
      zip.readEntry()
    })
    zip.on('end', () => resolve(byName))
    zip.on('error', (err: Error) => {
      // yauzl validates every path it decodes; its messages end with the offending name.
      const unsafe = /^(absolute path|invalid relative path|invalid characters in fileName): (.*)$/.exec(
        err.message,
      )
      if (unsafe)
        reject(
          new CodebookError(
            'ZIP_UNSAFE_PATH',
            `${file}: entry '${unsafe[2]}' points outside the archive (${unsafe[1]})`,
          ),
        )
      else
        reject(new CodebookError('BAD_ZIP', `${file}: corrupt zip archive (${err.message})`, { cause: err }))
    })
    zip.readEntry()
  })
}

function readEntry(file: string, zip: ZipFile, entry: Entry): Promise<Buffer> {
  const name = entry.fileName
  if (entry.uncompressedSize > MAX_ZIP_ENTRY_BYTES)
    return Promise.reject(
      new CodebookError(
        'ZIP_ENTRY_TOO_LARGE',
        `${file}: entry '${name}' is ${entry.uncompressedSize} bytes, more than ${MAX_ZIP_ENTRY_BYTES}`,
      ),
    )
  return new Promise((resolve, reject) => {
    const fail = (err: Error) =>
      reject(
        new CodebookError('BAD_ZIP', `${file}: entry '${name}' cannot be read (${err.message})`, {
          cause: err,
        }),
      )
    zip.openReadStream(entry, (err, stream) => {
      if (err) return fail(err)
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('error', fail)
      stream.on('end', () => resolve(Buffer.concat(chunks)))
    })
  })
}
