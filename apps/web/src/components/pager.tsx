/** Rows shown per page of a long table. */
export const PAGE_SIZE = 50

/** The rows of page `page` (0-based), the page clamped to the last one. */
export function pageOf<T>(rows: readonly T[], page: number): { rows: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE))
  const p = Math.min(Math.max(0, page), pages - 1)
  return { rows: rows.slice(p * PAGE_SIZE, (p + 1) * PAGE_SIZE), page: p, pages }
}

/** Previous / next buttons under a paginated table; nothing when everything fits on one page. */
export function Pager(props: { page: number; pages: number; onPage: (page: number) => void }) {
  if (props.pages <= 1) return null
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        className="btn"
        disabled={props.page === 0}
        onClick={() => props.onPage(props.page - 1)}
      >
        Newer
      </button>
      <span className="num">
        page {props.page + 1} of {props.pages}
      </span>
      <button
        type="button"
        className="btn"
        disabled={props.page >= props.pages - 1}
        onClick={() => props.onPage(props.page + 1)}
      >
        Older
      </button>
    </nav>
  )
}
