import { z } from 'zod'

/** Characters no name may hold: controls (NUL, newline, …), lone surrogates, private use, and bidi overrides that disguise text. */
const UNPRINTABLE = /[\p{Cc}\p{Cs}\p{Co}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u

/** Longest name a user may give a dataset, image set, evaluation or topology. */
export const MAX_NAME_CHARS = 200

/** Whether `text` holds only printable characters. */
export function isPrintable(text: string): boolean {
  return !UNPRINTABLE.test(text)
}

/** A printable string (no control characters), for names that are stored, shown and logged. */
export function printableString(maxChars: number) {
  return z
    .string()
    .max(maxChars, `must be at most ${maxChars} characters`)
    .refine(isPrintable, 'must be printable: no control characters such as NUL or newline')
}

/** A user-given name: trimmed, 1–200 printable characters. */
export const DisplayName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_NAME_CHARS, `must be at most ${MAX_NAME_CHARS} characters`)
  .refine(isPrintable, 'must be printable: no control characters such as NUL or newline')
