const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

/** An integer with thousands separators; '—' for null. */
export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : integer.format(n)
}

/** A count and its noun, singular for exactly one: `1 node`, `2 nodes`, `1,000 classes` (`plural` for irregular ones). */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${formatCount(n)} ${n === 1 ? noun : plural}`
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const

/** Bytes in decimal units (1 MB = 10^6 B), three significant digits: 4.19 MB, 812 KB. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—'
  let value = Math.abs(bytes)
  let unit = 0
  while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000
    unit++
  }
  const digits = unit === 0 ? 0 : value >= 100 ? 0 : value >= 10 ? 1 : 2
  return `${bytes < 0 ? '-' : ''}${value.toFixed(digits)} ${BYTE_UNITS[unit]}`
}

/** A transfer rate in MB/s (decimal), one decimal place. */
export function formatRate(bytesPerSecond: number | null): string {
  return bytesPerSecond === null ? '— MB/s' : `${(bytesPerSecond / 1e6).toFixed(1)} MB/s`
}

/** A duration for humans: 42 s, 3 min 05 s, 2 h 07 min. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '—'
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`
}

/** A fraction 0..1 as a whole percentage. */
export function formatPercent(fraction: number): string {
  return `${Math.floor(Math.min(1, Math.max(0, fraction)) * 100)}%`
}

/**
 * A vector component for tables: integers as is, others with 4 significant digits, so float32
 * noise (0.123 stored as 0.12300000339) does not show.
 */
export function formatValue(v: number): string {
  if (Number.isInteger(v)) return String(v)
  return String(Number(v.toPrecision(4)))
}

const dateTime = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
})

/** An ISO timestamp as a short local date and time. */
export function formatDateTime(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date)
}

/** A file name without its last extension (and without .gz before it): "hog.txt.gz" → "hog". */
export function baseName(filename: string): string {
  const withoutGz = filename.replace(/\.gz$/i, '')
  const dot = withoutGz.lastIndexOf('.')
  return dot > 0 ? withoutGz.slice(0, dot) : withoutGz
}

/**
 * Decimals that give the largest magnitude in a column 4 significant digits (at most 6), so a
 * column of numbers shares one precision and lines up: 0.5380, 12.41, 1534.
 */
export function decimalsFor(values: readonly number[]): number {
  let maxAbs = 0
  for (const v of values) if (Number.isFinite(v)) maxAbs = Math.max(maxAbs, Math.abs(v))
  if (maxAbs === 0 || values.every(Number.isInteger)) return 0
  // The epsilon keeps float32 values just under a power of ten (0.99999994) from earning a digit.
  return Math.min(6, Math.max(0, 3 - Math.floor(Math.log10(maxAbs) + 1e-6)))
}

/** A number with a fixed number of decimals (see {@link decimalsFor}). */
export function formatFixed(v: number, decimals: number): string {
  return v.toFixed(decimals)
}
