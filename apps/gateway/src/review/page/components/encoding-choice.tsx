/**
 * For an uploaded text file: the encoding its bytes are read in. Detection is a guess on a sample,
 * and a short file can be guessed wrong ("Città" read "Cittŕ"): the reviewer, who sees the letters,
 * chooses the encoding the file was saved in.
 */
import { t } from '../i18n';
import type { ReviewView } from '../types';
import { SourceChoice } from './source-choice';

/** The languages each encoding is for, as the select names it ("Central European (windows-1250)"). */
const REGIONS: Record<string, string> = {
  'utf-8': 'unicode',
  'windows-1252': 'western',
  'iso-8859-15': 'western',
  macintosh: 'western',
  'windows-1250': 'central',
  'iso-8859-2': 'central',
  'windows-1251': 'cyrillic',
  'koi8-r': 'cyrillic',
  'koi8-u': 'cyrillic',
  ibm866: 'cyrillic',
  'windows-1253': 'greek',
  'iso-8859-7': 'greek',
  'windows-1254': 'turkish',
  'windows-1255': 'hebrew',
  'iso-8859-8': 'hebrew',
  'windows-1256': 'arabic',
  'windows-1257': 'baltic',
  'windows-1258': 'vietnamese',
};
const encodingName = (encoding: string): string =>
  REGIONS[encoding] ? `${t(`encoding_region_${REGIONS[encoding]}`)} (${encoding})` : encoding;

export function EncodingChoice({ view, readOnly, busy }: { view: ReviewView; readOnly: boolean; busy: boolean }) {
  if (!view.encoding || view.encodings.length === 0) return null;
  return (
    <SourceChoice
      path="encoding"
      label={t('encoding_label')}
      hint={readOnly ? null : t('encoding_hint')}
      current={view.encoding}
      options={view.encodings.map((encoding) => ({ value: encoding, text: encodingName(encoding) }))}
      shown={encodingName}
      disabled={readOnly || busy}
    />
  );
}
