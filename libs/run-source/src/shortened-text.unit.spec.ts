import { shortenedText } from './shortened-text';

describe('shortenedText', () => {
  it('keeps a value within the bound whole and unmarked', () => {
    expect(shortenedText('abc', 3)).toEqual({ text: 'abc', shortened: false });
    expect(shortenedText('', 3)).toEqual({ text: '', shortened: false });
  });

  it('cuts a longer value to the bound and marks it', () => {
    expect(shortenedText('abcdef', 4)).toEqual({ text: 'abcd', shortened: true });
  });

  it('never splits a surrogate pair: the cut ends before it', () => {
    expect(shortenedText('ab😀cd', 3)).toEqual({ text: 'ab', shortened: true });
    expect(shortenedText('ab😀cd', 4)).toEqual({ text: 'ab😀', shortened: true });
  });
});
