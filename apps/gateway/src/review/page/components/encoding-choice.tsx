/**
 * For an uploaded text file: the encoding its bytes are read in. Detection is a guess on a sample,
 * and a short file can be guessed wrong ("Città" read "Cittŕ"): the reviewer, who sees the letters,
 * chooses the encoding the file was saved in.
 */
import { t } from '../i18n';
import { chooseEncoding } from '../state';
import type { ReviewView } from '../types';

/** The languages each encoding is for, as the select names it ("Central European (windows-1250)"). */
const REGIONS: Record<string, string> = {
  'utf-8': 'unicode',
  'windows-1252': 'western',
  'iso-8859-15': 'western',
  macintosh: 'western',
  'windows-1250': 'central',
  'windows-1251': 'cyrillic',
  'windows-1253': 'greek',
  'windows-1254': 'turkish',
  'windows-1255': 'hebrew',
  'windows-1256': 'arabic',
  'windows-1257': 'baltic',
  'windows-1258': 'vietnamese',
};
const encodingName = (encoding: string): string =>
  REGIONS[encoding] ? `${t(`encoding_region_${REGIONS[encoding]}`)} (${encoding})` : encoding;

/**
 * A closed select changes at each arrow key, and the file is read again when an encoding is chosen:
 * it is chosen once the reviewer stops (as a workbook's sheet is).
 */
const ENCODING_SETTLE_MS = 500;
let choosing: ReturnType<typeof setTimeout> | undefined;
function chooseWhenSettled(encoding: string): void {
  clearTimeout(choosing);
  choosing = setTimeout(() => void chooseEncoding(encoding, encodingName(encoding)), ENCODING_SETTLE_MS);
}

export function EncodingChoice({ view, readOnly, busy }: { view: ReviewView; readOnly: boolean; busy: boolean }) {
  if (!view.encoding || view.encodings.length === 0) return null;
  return (
    <div class="sheet-choice encoding-choice">
      <label for="encoding-choice">{t('encoding_label')}</label>
      <select
        id="encoding-choice"
        value={view.encoding}
        disabled={readOnly || busy}
        aria-describedby="encoding-choice-hint"
        onChange={(e) => chooseWhenSettled(e.currentTarget.value)}
      >
        {view.encodings.map((encoding) => (
          <option value={encoding}>{encodingName(encoding)}</option>
        ))}
      </select>
      <p id="encoding-choice-hint" class="muted">
        {t('encoding_hint')}
      </p>
    </div>
  );
}
