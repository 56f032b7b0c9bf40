import type { MisclassifiedImage } from '@codebook/shared'
import { useState } from 'react'
import { imageSetImageUrl } from '../api/evaluation-client.ts'
import { misclassifiedCaption } from './evaluation-format.ts'

/** Test images the classifier got wrong, each captioned "true → predicted". */
export function MisclassifiedGallery(props: {
  imageSetId: string
  items: MisclassifiedImage[]
  classes: string[]
}) {
  if (props.items.length === 0) {
    return <div className="empty">No test image was misclassified at this k.</div>
  }
  return (
    <ul className="gallery" aria-label="Misclassified images">
      {props.items.map((m) => (
        <GalleryItem key={m.index} imageSetId={props.imageSetId} item={m} classes={props.classes} />
      ))}
    </ul>
  )
}

function GalleryItem(props: { imageSetId: string; item: MisclassifiedImage; classes: string[] }) {
  const [failed, setFailed] = useState(false)
  const caption = misclassifiedCaption(props.item, props.classes)
  return (
    <li className="gallery-item" data-index={props.item.index}>
      <figure>
        {failed ? (
          <div className="gallery-missing" title="The image could not be loaded">
            ?
          </div>
        ) : (
          <img
            src={imageSetImageUrl(props.imageSetId, props.item.index)}
            alt={`#${props.item.index}: ${caption}`}
            loading="lazy"
            onError={() => setFailed(true)}
          />
        )}
        <figcaption>
          <span className="num">{caption}</span>
          <span className="muted num">#{props.item.index}</span>
        </figcaption>
      </figure>
    </li>
  )
}
