import { useEffect, useRef } from 'react'
import { TOKEN_ERROR_CODES } from '../api/api-token.ts'
import { toBannerError } from './error-banner.tsx'

/**
 * A mutation whose error is shown where the user acted (the card or the field), not in the page
 * banner: pass it as `useMutation({ meta: INLINE_ERROR, … })` and render {@link InlineError} with
 * its `error`. main.tsx skips the banner for these (a missing token still turns the token banner on).
 */
export const INLINE_ERROR = { inlineError: true } as const

/** Whether a mutation's `meta` asks for its error to be shown inline. */
export function isInlineError(meta: Record<string, unknown> | undefined): boolean {
  return meta?.inlineError === true
}

/**
 * An error next to the control that caused it, scrolled into view when it appears: the server's
 * code and message, then `hint` (what to change in this form). A token refusal says to paste the token.
 */
export function InlineError(props: { error: unknown; hint?: string | null | undefined; testId?: string }) {
  const ref = useRef<HTMLDivElement>(null)
  const shown = props.error ? toBannerError(props.error) : null
  const key = shown ? `${shown.code}:${shown.message}` : ''
  useEffect(() => {
    if (key !== '') ref.current?.scrollIntoView({ block: 'nearest' })
  }, [key])
  if (!shown) return null
  const token = TOKEN_ERROR_CODES.has(shown.code)
  return (
    <div className="notice notice-error inline-error" role="alert" ref={ref} data-testid={props.testId}>
      <div>
        {token ? (
          <strong>
            Not saved: this browser has no accepted API token — paste it in the banner at the top.
          </strong>
        ) : (
          <>
            <span className="code-tag">{shown.code}</span> {shown.message}
          </>
        )}
        {!token && props.hint && <div className="notice-detail">{props.hint}</div>}
      </div>
    </div>
  )
}
