import { formatDay, numbers, t } from '../i18n';
import { useLoad } from '../use-load';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';

interface Day {
  date: string;
  finished: number;
  failed: number;
  canceled: number;
  other: number;
}
interface Usage {
  quota: { limit: number | null; used: number; left: number | null };
  days: Day[];
  rows_processed: number;
}
const OUTCOMES = ['finished', 'failed', 'canceled', 'other'] as const;

/** The quota, runs per day over 30 days by outcome (a chart and the same figures as a table), rows processed. */
export function UsagePage() {
  const usage = useLoad<{ data: Usage }>('/usage');
  const u = usage.data?.data;
  return (
    <section>
      <PageTitle text={t('usage.title')} />
      <LoadState loading={usage.loading && !usage.data} error={usage.error} onRetry={usage.reload} />
      {u && (
        <>
          <dl class="facts">
            <dt>{t('usage.quota')}</dt>
            <dd>
              {u.quota.limit === null
                ? t('usage.unlimited', { used: u.quota.used })
                : t('usage.quota_of', { used: u.quota.used, limit: u.quota.limit, left: u.quota.left ?? 0 })}
            </dd>
            <dt>{t('usage.rows')}</dt>
            <dd>{numbers.format(u.rows_processed)}</dd>
          </dl>
          <h2>{t('usage.per_day')}</h2>
          <Chart days={u.days} />
          <p class="chart-axis muted" aria-hidden="true">
            <span>{formatDay(u.days[0].date)}</span>
            <span>{t('usage.peak', { count: Math.max(0, ...u.days.map((d) => d.finished + d.failed + d.canceled + d.other)) })}</span>
            <span>{formatDay(u.days[u.days.length - 1].date)}</span>
          </p>
          <ul class="legend">
            {OUTCOMES.map((o) => (
              <li key={o}>
                <span class={`swatch ${o}`} aria-hidden="true" /> {t(`usage.${o}`)}
              </li>
            ))}
          </ul>
          <details>
            <summary>{t('usage.as_table')}</summary>
            {/* A card a day on a phone, as the other tables: six columns did not fit 360 px, and two hid off-screen. */}
            <div class="table-wrap stack compact" tabIndex={0}>
              <table>
                <caption class="visually-hidden">{t('usage.per_day')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('usage.day')}</th>
                    {OUTCOMES.map((o) => (
                      <th scope="col" key={o}>
                        {t(`usage.${o}`)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {u.days.map((d) => (
                    <tr key={d.date}>
                      <th scope="row">{formatDay(d.date)}</th>
                      {OUTCOMES.map((o) => (
                        <td key={o} data-label={t(`usage.${o}`)}>
                          {numbers.format(d[o])}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </section>
  );
}

/** Stacked bars, one per day; the SVG scales to the width it has (no sideways scrolling on a phone). */
function Chart({ days }: { days: Day[] }) {
  const max = Math.max(1, ...days.map((d) => OUTCOMES.reduce((n, o) => n + d[o], 0)));
  const total = days.reduce((n, d) => n + OUTCOMES.reduce((m, o) => m + d[o], 0), 0);
  const w = 10;
  const h = 100;
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${days.length * w} ${h + 14}`}
      role="img"
      aria-label={t('usage.chart_label', { count: total, days: days.length })}
      preserveAspectRatio="none"
    >
      {days.map((d, i) => {
        let y = h;
        return (
          <g key={d.date}>
            {OUTCOMES.map((o) => {
              const bar = (d[o] / max) * h;
              y -= bar;
              return bar > 0 ? <rect key={o} class={`bar ${o}`} x={i * w + 1} y={y} width={w - 2} height={bar} /> : null;
            })}
          </g>
        );
      })}
      <line class="axis" x1="0" y1={h} x2={days.length * w} y2={h} />
    </svg>
  );
}
