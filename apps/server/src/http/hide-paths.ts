/**
 * `text` with every occurrence of the data home (and anything below it) written as
 * `CODEBOOK_HOME/…`: answers and stored error messages name files the way the user configured
 * them, never by the server's absolute path.
 */
export function hideServerPaths(text: string, home: string): string {
  const root = home.endsWith('/') ? home.slice(0, -1) : home
  return root === '' ? text : text.replaceAll(root, 'CODEBOOK_HOME')
}
