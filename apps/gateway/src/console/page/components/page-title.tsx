import type { RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n';

/**
 * A page's one h1; the document title follows it, and focus moves to it when the page changes (for screen readers and keyboards).
 * `headingRef`: for a page whose h1 also heads its list, where the focus goes when the list's last control is gone (use-removal-focus.ts).
 */
export function PageTitle({ text, headingRef }: { text: string; headingRef?: RefObject<HTMLHeadingElement | null> }) {
  const own = useRef<HTMLHeadingElement>(null);
  const ref = headingRef ?? own;
  useEffect(() => {
    document.title = `${text} · ${t('app.name')}`;
    if (document.activeElement === document.body || document.activeElement?.closest('nav.site-nav')) ref.current?.focus();
  }, [text]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {text}
    </h1>
  );
}
