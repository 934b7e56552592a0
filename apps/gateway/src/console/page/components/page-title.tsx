import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n';

/** A page's one h1; the document title follows it, and focus moves to it when the page changes (for screen readers and keyboards). */
export function PageTitle({ text }: { text: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
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
