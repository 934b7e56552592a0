import { onFirstUse } from './on-first-use';

describe('onFirstUse', () => {
  it('makes the value when first asked for, once', () => {
    const make = jest.fn(() => ({ made: true }));
    const value = onFirstUse(make);
    expect(make).not.toHaveBeenCalled();
    const first = value();
    expect(value()).toBe(first);
    expect(make).toHaveBeenCalledTimes(1);
  });

  it('keeps a value that is falsy', () => {
    const make = jest.fn(() => 0);
    const value = onFirstUse(make);
    expect([value(), value()]).toEqual([0, 0]);
    expect(make).toHaveBeenCalledTimes(1);
  });
});

describe('libraries a schema may never need are loaded on first use', () => {
  /** Requires `module` in a fresh registry where each library notes when it is loaded; returns the module and the notes. */
  function withLoadsNoted<T>(module: string, libraries: string[]): { exports: T; loaded: string[] } {
    const loaded: string[] = [];
    let exports: T | undefined;
    jest.isolateModules(() => {
      for (const name of libraries)
        jest.doMock(name, () => {
          loaded.push(name);
          return jest.requireActual(name);
        });
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh copy of the module, with the mocks above
      exports = require(module) as T;
    });
    return { exports: exports!, loaded };
  }
  afterEach(() => jest.resetModules());

  it("none of them with the domain's code, which every file-work thread loads as it starts", () => {
    const { loaded } = withLoadsNoted('../index', ['re2js', 'safe-regex2', 'date-fns/parse', 'date-fns/format']);
    expect(loaded).toEqual([]);
  });

  it('re2js and safe-regex2: when a pattern is first checked', () => {
    const { exports, loaded } = withLoadsNoted<typeof import('./field-validators')>('./field-validators', ['re2js', 'safe-regex2']);
    expect(loaded).toEqual([]);
    expect(exports.patternProblem('^(a+)+$')).toMatch(/backtrack/);
    expect(loaded.sort()).toEqual(['re2js', 'safe-regex2']);
  });

  it("date-fns's general parser and writer: when a pattern outside the compiled set is first used", () => {
    const { exports, loaded } = withLoadsNoted<typeof import('./transformations')>('./transformations', [
      'date-fns/parse',
      'date-fns/format',
    ]);
    expect(exports.compileDateRewrite('dd/MM/yyyy', 'yyyy-MM-dd')('31/12/1999')).toBe('1999-12-31');
    expect(loaded).toEqual([]);
    // "Do" (an ordinal day of the year) is outside the compiled patterns: date-fns reads and writes it.
    expect(exports.compileDateRewrite('yyyy-MM-dd', 'yyyy, Do')('1999-12-31')).toBe('1999, 365th');
    expect(loaded.sort()).toEqual(['date-fns/format', 'date-fns/parse']);
  });
});
