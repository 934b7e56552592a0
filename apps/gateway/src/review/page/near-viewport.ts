/**
 * Whether an element is on screen or near it, from one IntersectionObserver the page shares.
 * A schema of many fields lists every column in every field's select: 1,000 fields of a file
 * of 1,000 columns made a million options, and the page took 20 s to become usable. A select
 * far from the screen holds only its chosen column until it comes near or takes the focus.
 */
import type { RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** How far from the screen an element counts as near: a few screens, so scrolling finds options in place. */
const NEAR = '2000px 0px';

const watched = new Map<Element, (near: boolean) => void>();
let observer: IntersectionObserver | null = null;

function observe(element: Element, onChange: (near: boolean) => void): () => void {
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) watched.get(entry.target)?.(entry.isIntersecting);
    },
    { rootMargin: NEAR },
  );
  watched.set(element, onChange);
  observer.observe(element);
  return () => {
    watched.delete(element);
    observer?.unobserve(element);
  };
}

/** True once the element has been near the screen (it stays true: options drawn are kept). */
export function useHasBeenNear(ref: RefObject<Element | null>): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element || near) return undefined;
    // Without the observer (an old browser), everything is near.
    if (typeof IntersectionObserver === 'undefined') {
      setNear(true);
      return undefined;
    }
    return observe(element, (isNear) => {
      if (isNear) setNear(true);
    });
  }, [near]);
  return near;
}
