import { useState } from 'react'

/**
 * A numeric input that commits every parseable value as typed and keeps an unparseable draft
 * ("", "1e") local, marked invalid, until it parses. A value changed from outside (undo) replaces
 * the draft.
 */
export function NumberField(props: {
  id: string
  label: string
  value: number | undefined
  onCommit: (value: number | undefined) => void
  /** Allow clearing the field (commits undefined). */
  optional?: boolean
  integer?: boolean
  className?: string
}) {
  const shown = props.value === undefined ? '' : String(props.value)
  const [draft, setDraft] = useState(shown)
  const [prev, setPrev] = useState(props.value)
  if (props.value !== prev) {
    setPrev(props.value)
    setDraft(shown)
  }
  const parsed = draft.trim() === '' ? undefined : Number(draft)
  const ok =
    parsed === undefined
      ? !!props.optional
      : Number.isFinite(parsed) && (!props.integer || Number.isInteger(parsed))
  return (
    <div className={`field ${props.className ?? ''}`}>
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        inputMode="decimal"
        className="num"
        value={draft}
        aria-invalid={ok ? undefined : true}
        onChange={(e) => {
          const text = e.target.value
          setDraft(text)
          const v = text.trim() === '' ? undefined : Number(text)
          if (
            v === undefined ? props.optional : Number.isFinite(v) && (!props.integer || Number.isInteger(v))
          ) {
            setPrev(v)
            props.onCommit(v)
          }
        }}
      />
    </div>
  )
}

/** A text input committing every keystroke (validation of names is the schema's job). */
export function TextField(props: {
  id: string
  label: string
  value: string
  onCommit: (value: string) => void
  className?: string
}) {
  return (
    <div className={`field ${props.className ?? ''}`}>
      <label htmlFor={props.id}>{props.label}</label>
      <input id={props.id} value={props.value} onChange={(e) => props.onCommit(e.target.value)} />
    </div>
  )
}
