/**
 * Keeps what takes the focus clear of the actions bar, which stays at the bottom of the screen: the
 * page's scroll padding at the bottom follows the bar's height (it wraps onto two lines on a phone),
 * so the browser scrolls a focused control, or a message scrolled into view, above the bar rather
 * than under it (WCAG 2.4.11). The bar's height is a CSS variable that review.css reads.
 */
import type { RefObject } from 'preact';
import { useLayoutEffect } from 'preact/hooks';

/** `shown`: whether the bar is drawn (a closed review has none). */
export function useStickyBarRoom(bar: RefObject<HTMLElement | null>, shown: boolean): void {
  useLayoutEffect(() => {
    const element = bar.current;
    if (!element) return;
    const root = document.documentElement;
    const measure = () => root.style.setProperty('--actions-room', `${Math.ceil(element.getBoundingClientRect().height)}px`);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--actions-room');
    };
  }, [bar, shown]);
}
