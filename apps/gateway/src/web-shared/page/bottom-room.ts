/**
 * Keeps what takes the focus clear of what stays at the bottom of the screen (the review's actions
 * bar, the console's status message): the page's bottom scroll padding follows that element's height
 * (it wraps onto more lines on a phone), so the browser scrolls a focused control, or a message
 * scrolled into view, above it rather than under it (WCAG 2.4.11). The height is the CSS variable
 * `--bottom-room`, which each page's style reads.
 */
import type { RefObject } from 'preact';
import { useLayoutEffect } from 'preact/hooks';

/** `shown`: whether the element is drawn (a closed review has no actions bar; no message, no status). */
export function useBottomRoom(element: RefObject<HTMLElement | null>, shown: boolean): void {
  useLayoutEffect(() => {
    const at = element.current;
    const root = document.documentElement;
    if (!at || !shown) {
      root.style.removeProperty('--bottom-room');
      return;
    }
    const measure = () => {
      root.style.setProperty('--bottom-room', `${Math.ceil(at.getBoundingClientRect().height)}px`);
      keepFocusClearOf(at);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(at);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--bottom-room');
    };
  }, [element, shown]);
}

/**
 * A message that appears over the control that has the focus (the e-mail field an invitation was just sent from, at
 * 360 px) leaves the person typing into what they cannot see: the control is scrolled above it. Scrolling by focus
 * alone does not happen then, the focus not having moved.
 */
function keepFocusClearOf(at: HTMLElement): void {
  const focused = document.activeElement;
  if (!(focused instanceof HTMLElement) || focused === document.body || at.contains(focused)) return;
  const bar = at.getBoundingClientRect();
  const control = focused.getBoundingClientRect();
  if (control.bottom > bar.top && control.top < bar.bottom) focused.scrollIntoView({ block: 'nearest' });
}
