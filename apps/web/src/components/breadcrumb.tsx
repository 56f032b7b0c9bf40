import { Link } from 'wouter'

/** The link back to a detail page's list (e.g. Runs), with the current item's name when given. */
export function Breadcrumb(props: { href: string; label: string; current?: string | undefined }) {
  return (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <Link href={props.href}>{props.label}</Link>
      {props.current !== undefined && (
        <>
          <span aria-hidden="true">/</span>
          <span>{props.current}</span>
        </>
      )}
    </nav>
  )
}
