import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';

/**
 * After a refused submit, the focus goes to the first field the answer names: its message is read
 * with it (aria-describedby), and mending it is the keyboard user's next step. A refusal that names
 * no field leaves the focus on the button that sent the form.
 */
export function useFocusOnFirstError(form: RefObject<HTMLFormElement | null>, errors: Record<string, string[]>): void {
  useEffect(() => {
    if (Object.keys(errors).length === 0) return;
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors]);
}
