import type { RunState } from '@app/domain';

/**
 * What the console's run search (`q`, RunListFilter) looks in: the run's file name, and each key and each value of its
 * metadata at any depth, every one a text of its own: a string as it is, a number, `true`, `false` or `null` as its JSON
 * text. Never the JSON around them: `"`, `:` or `{` finds only a name or a value that holds one, and a value
 * `say "hi"` is found by what was typed, not by its escaped JSON. Lower-cased as `q` is (searchQuery), each once.
 * Both adapters store them at every save and keep a run whose one term holds `q` (docs/decisions.md, "The run search").
 */
export function runSearchTerms(run: Pick<RunState, 'filename' | 'metadata'>): string[] {
  const terms = new Set<string>();
  const add = (text: string) => {
    if (text !== '') terms.add(text.toLowerCase());
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (value !== null && typeof value === 'object')
      for (const [key, item] of Object.entries(value)) {
        add(key);
        visit(item);
      }
    else add(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  };
  if (run.filename) add(run.filename);
  if (run.metadata) visit(run.metadata);
  return [...terms];
}

/** `q` as the terms are written (runSearchTerms): lower-cased, by the same rules. */
export const searchQuery = (q: string): string => q.toLowerCase();
