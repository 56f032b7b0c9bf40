/**
 * Name prefixes of the files the server stages in `uploads/` besides tus uploads (whose expiry
 * removes them). A server that dies while receiving or checking one leaves it; the next start
 * removes every file with these prefixes before it takes requests.
 */

/** Direct dataset uploads (`POST|PUT /api/datasets`). */
export const DIRECT_UPLOAD_PREFIX = 'direct-'
/** The demo dataset's generated HOG text. */
export const DEMO_UPLOAD_PREFIX = 'demo-'
/** Image-set uploads and the demo image set's copy. */
export const IMAGE_SET_UPLOAD_PREFIX = 'image-set-'
