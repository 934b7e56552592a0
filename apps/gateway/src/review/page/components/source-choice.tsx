/**
 * A select of how the file is read (a workbook's sheet, a text file's encoding), with its hint. The
 * choice is made once the reviewer stops on an option (state.ts, chooseSourceWhenSettled).
 */
import { chooseSourceWhenSettled } from '../state';

export interface SourceChoiceProps {
  path: 'sheet' | 'encoding';
  label: string;
  /** How to choose; none on a closed review, where nothing can be chosen. */
  hint: string | null;
  /** The one read now. */
  current: string;
  options: { value: string; text: string }[];
  /** The choice as the page names it in its messages. */
  shown: (value: string) => string;
  disabled: boolean;
}

export function SourceChoice({ path, label, hint, current, options, shown, disabled }: SourceChoiceProps) {
  const id = `${path}-choice`;
  return (
    <div class={`source-choice ${id}`}>
      <label for={id}>{label}</label>
      {/* Not controlled: a redraw while the choice settles (a message, a count) must not put the one read back. */}
      <select
        key={current}
        id={id}
        disabled={disabled}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => chooseSourceWhenSettled(path, e.currentTarget.value, shown(e.currentTarget.value))}
      >
        {options.map((o) => (
          <option value={o.value} selected={o.value === current}>
            {o.text}
          </option>
        ))}
      </select>
      {hint && (
        <p id={`${id}-hint`} class="muted">
          {hint}
        </p>
      )}
    </div>
  );
}
