import { useState } from 'preact/hooks';
import { api, failureText, type ApiFailure } from '../api';
import { has, t } from '../i18n';
import { useAction } from '../use-action';
import { announce } from './status';

interface Trial {
  headers: string[];
  rows_above_header: string[];
  rows_checked: number;
  truncated?: boolean;
  suggested_mapping: Record<string, string | null>;
  problems: { rows_with_problems: number; by_field: Record<string, Record<string, number>> };
}

/** "Try it": a file's headers, the suggested mapping and its problems, without creating a run. */
export function TrySchema({ schemaId }: { schemaId: string }) {
  const [trial, setTrial] = useState<Trial | null>(null);
  const send = useAction(async (file: File | undefined) => {
    if (!file) {
      announce(t('try.pick'), 'error');
      return;
    }
    setTrial(null);
    try {
      const { data } = await api<{ data: Trial }>('POST', `/schemas/${schemaId}/try?filename=${encodeURIComponent(file.name)}`, undefined, {
        bytes: file,
        type: 'application/octet-stream',
      });
      setTrial(data);
      announce(t('try.done', { count: data.problems.rows_with_problems }));
    } catch (err) {
      announce(failureText(err as ApiFailure), 'error');
    }
  });
  const submit = (event: Event) => {
    event.preventDefault();
    void send.run((event.target as HTMLFormElement).querySelector<HTMLInputElement>('input[type=file]')?.files?.[0]);
  };
  return (
    <section aria-labelledby="try-title">
      <h2 id="try-title">{t('try.title')}</h2>
      <p class="muted">{t('try.intro')}</p>
      <form onSubmit={submit}>
        <label for="try-file">{t('try.file')}</label>
        <input id="try-file" type="file" accept=".csv,.tsv,.txt,.xlsx,text/csv,text/plain" />
        <button type="submit" aria-disabled={send.busy || undefined}>
          {send.busy ? t('try.busy') : t('try.submit')}
        </button>
      </form>
      {trial && (
        <div class="trial">
          <p>
            {t('try.summary', { rows: trial.rows_checked, count: trial.problems.rows_with_problems })}
            {trial.truncated ? ` ${t('try.truncated')}` : ''}
          </p>
          <h3>{t('try.headers')}</h3>
          <p class="wrap">{trial.headers.join(' · ')}</p>
          {trial.rows_above_header.length > 0 && <p class="wrap">{t('try.above_header', { rows: trial.rows_above_header.join(' · ') })}</p>}
          <div class="table-wrap stack" tabIndex={0}>
            <table>
              <caption>{t('try.mapping')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('try.col.field')}</th>
                  <th scope="col">{t('try.col.column')}</th>
                  <th scope="col">{t('try.col.problems')}</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(trial.suggested_mapping).map(([field, column]) => (
                  <tr key={field}>
                    <th scope="row">{field}</th>
                    <td data-label={t('try.col.column')}>{column ?? t('try.unmapped')}</td>
                    <td data-label={t('try.col.problems')}>
                      {Object.entries(trial.problems.by_field[field] ?? {})
                        .filter(([, n]) => n > 0)
                        .map(([kind, n]) =>
                          has(`try.kind.${kind}`) ? t(`try.kind.${kind}`, { count: n }) : t('try.kind', { kind, count: n }),
                        )
                        .join(', ') || t('try.no_problems')}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </section>
  );
}
