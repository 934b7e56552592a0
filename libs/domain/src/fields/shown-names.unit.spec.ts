import { hasHiddenControls } from './shown-names';
import { validatePicklistAndDescriptions } from './picklists';

describe('names shown to other people', () => {
  it('refuse control characters, line and paragraph separators, and direction overrides and isolates', () => {
    for (const hidden of ['\u0000', '\t', '\n', '\u0085', '\u2028', '\u2029', '\u202A', '\u202E', '\u2066', '\u2069', '\ud800', '\udfff'])
      expect({ hidden, refused: hasHiddenControls(`Ada${hidden}Lovelace`) }).toEqual({ hidden, refused: true });
  });

  it('keep what names in other scripts need: joiners, marks, emoji sequences', () => {
    const names = [
      'محمد علی',
      'דוד לוי',
      'अनुच्छेद',
      'สมชาย ใจดี',
      'می\u200Cخواهم',
      'a\u200Fb\u200E',
      '👩\u200D💻 Dev',
      '🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}',
    ];
    for (const name of names) expect({ name, refused: hasHiddenControls(name) }).toEqual({ name, refused: false });
  });

  it("hold for an allowed value's label and labels (descriptions are prose: line breaks allowed)", () => {
    const problems = validatePicklistAndDescriptions({
      data_type: 'enum',
      allowed_values: [{ value: 'a', label: 'A\u202Eb', labels: { de: 'x\ny' } }],
      descriptions: { de: 'Zeile eins\nZeile zwei' },
    });
    expect(problems.map((p) => p.at)).toEqual(['allowed_values.0.label', 'allowed_values.0.labels.de']);
  });
});
