import { CreateStudy, type CreateStudyInput, FIGURE3_CVS, type StudyKind } from '@codebook/shared'

/** The study form as typed: every field a string, lists comma-separated. */
export interface StudyFormValues {
  kind: StudyKind
  n: string
  /** Runs per (cv, μc) cell (`reductions`), per Figure 4 cell (`grid`), or in all (`markov`). */
  runs: string
  seed: string
  cv: string
  muC: string
  name: string
}

/** A small Figure 3 that finishes in seconds; the paper's 100,000 runs are one edit away. */
export const defaultStudyForm: StudyFormValues = {
  kind: 'reductions',
  n: '64',
  runs: '10000',
  seed: '1',
  cv: FIGURE3_CVS.join(', '),
  muC: '0',
  name: '',
}

/** Default runs per kind (the CLI's, except Figure 3's 10,000 instead of 100,000 for a quick first look). */
export const defaultRuns: Record<StudyKind, string> = { reductions: '10000', grid: '1000', markov: '100000' }

export type StudyFormResult =
  | { ok: true; input: CreateStudyInput }
  | { ok: false; errors: Partial<Record<keyof StudyFormValues, string>> }

/** A whole number as typed, or NaN (so the schema names the field). */
function whole(text: string): number {
  return /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
}

/** A comma-separated list of numbers, or undefined when an item is not a number. */
export function numberList(text: string): number[] | undefined {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const values = items.map(Number)
  return values.every((v) => Number.isFinite(v)) ? values : undefined
}

/**
 * Checks the form against the server's own schema (`CreateStudy` of `@codebook/shared`, the
 * bounds `POST /api/studies` enforces), naming the field of each error.
 */
export function validateStudyForm(v: StudyFormValues): StudyFormResult {
  const errors: Partial<Record<keyof StudyFormValues, string>> = {}
  const common = {
    n: whole(v.n),
    runs: whole(v.runs),
    seed: whole(v.seed),
    ...(v.name.trim() !== '' ? { name: v.name.trim() } : {}),
  }
  let body: Record<string, unknown> = { kind: v.kind, ...common }
  if (v.kind === 'reductions') {
    const cv = numberList(v.cv)
    const muC = numberList(v.muC)
    if (cv === undefined) errors.cv = 'give numbers separated by commas'
    if (muC === undefined) errors.muC = 'give numbers separated by commas'
    body = { ...body, cv, muC }
  }
  const parsed = CreateStudy.safeParse(body)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? 'kind') as keyof StudyFormValues
      errors[field] ??= issue.message
    }
  }
  if (Object.keys(errors).length > 0 || !parsed.success) return { ok: false, errors }
  return { ok: true, input: body as CreateStudyInput }
}
