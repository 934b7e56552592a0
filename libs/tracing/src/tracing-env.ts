/**
 * Whether this process traces: OTEL_TRACES_EXPORTER names at least one exporter (otlp,
 * zipkin, console) and not `none`, and OTEL_SDK_DISABLED is not `true`. Unset or empty:
 * off (the SDK alone would default to otlp). Kept apart from the SDK so that deciding
 * loads nothing of it.
 */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '' && s !== 'null');
  return exporters.length > 0 && !exporters.includes('none');
}

/** The app whose main.js this process runs (`…/apps/<app>/src/main.js`), the default service name. */
export function appNameOf(mainPath: string | undefined): string {
  return /[\\/]apps[\\/]([^\\/]+)[\\/]src[\\/]main\.[cm]?[jt]s$/.exec(mainPath ?? '')?.[1] ?? 'transformation-service';
}
