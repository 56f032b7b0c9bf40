import { memo, useEffect, useRef, useState } from 'react'
import { logLinePositions } from './log-lines.ts'
import type { RunLogLine } from './run-live.ts'

/** Height of one log row, px (fixed: the list is virtualised by arithmetic, not measurement). */
const ROW_PX = 22
/** Rows drawn above and below the visible window. */
const OVERSCAN = 8

/**
 * The run's log lines, coloured by level, newest at the bottom. Only the rows in view are in the
 * DOM (a run may log thousands of lines); the list follows new lines while scrolled to the bottom.
 * `count` is the number of lines in `lines` to show (the array grows in place).
 */
export const RunLogPanel = memo(function RunLogPanel(props: { lines: readonly RunLogLine[]; count: number }) {
  const { lines, count } = props
  const boxRef = useRef<HTMLDivElement>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [height, setHeight] = useState(240)
  const [follow, setFollow] = useState(true)
  const [level, setLevel] = useState<'all' | 'warn'>('all')

  // Filtered: the positions in the whole log of the lines kept, so a line keeps its number.
  const shown = level === 'all' ? null : logLinePositions(lines, count, (l) => l.level !== 'info')
  const total = shown ? shown.length : count
  const positionOf = (row: number) => (shown ? (shown[row] ?? -1) : row)

  useEffect(() => {
    const box = boxRef.current
    if (!box) return
    const observer = new ResizeObserver(() => setHeight(box.clientHeight))
    observer.observe(box)
    return () => observer.disconnect()
  }, [])

  // Follow the tail while the user has not scrolled up.
  useEffect(() => {
    const box = boxRef.current
    if (box && follow && total > 0) box.scrollTop = total * ROW_PX
  }, [total, follow])

  const first = Math.max(0, Math.floor(scrollTop / ROW_PX) - OVERSCAN)
  const last = Math.min(total, Math.ceil((scrollTop + height) / ROW_PX) + OVERSCAN)
  const rows = []
  for (let i = first; i < last; i++) {
    const position = positionOf(i)
    const line = lines[position]
    if (!line) continue
    rows.push(
      <div
        key={line.seq}
        className={`log-line log-${line.level}`}
        style={{ top: i * ROW_PX, height: ROW_PX }}
        data-level={line.level}
      >
        {/* The line's number in the log (1, 2, 3…); the event seq also counts iterations, so it skips. */}
        <span className="log-seq num" title={`event ${line.seq}`}>
          {position + 1}
        </span>
        <span className="log-level">{line.level}</span>
        <span className="log-message">{line.message}</span>
      </div>,
    )
  }

  return (
    <div className="log-panel">
      <div className="toolbar">
        <label htmlFor="log-level" className="muted">
          Show
        </label>
        <select id="log-level" value={level} onChange={(e) => setLevel(e.target.value as 'all' | 'warn')}>
          <option value="all">all lines ({count})</option>
          <option value="warn">warnings and errors</option>
        </select>
        {!follow && (
          <button type="button" className="btn btn-ghost" onClick={() => setFollow(true)}>
            Follow new lines
          </button>
        )}
      </div>
      <div
        ref={boxRef}
        className="log-box"
        role="log"
        aria-label="Run log"
        data-testid="run-log"
        onScroll={(e) => {
          const box = e.currentTarget
          setScrollTop(box.scrollTop)
          setFollow(box.scrollTop + box.clientHeight >= box.scrollHeight - ROW_PX)
        }}
      >
        {total === 0 ? (
          <div className="empty">No log lines yet.</div>
        ) : (
          <div className="log-rows" style={{ height: total * ROW_PX }}>
            {rows}
          </div>
        )}
      </div>
    </div>
  )
})
