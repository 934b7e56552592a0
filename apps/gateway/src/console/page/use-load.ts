import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, type ApiFailure } from './api';

/** One GET of the console API, loaded when `path` changes and again on `reload()`. */
export function useLoad<T>(path: string | null): { data: T | null; error: ApiFailure | null; loading: boolean; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setLoading(true);
    api<T>('GET', path)
      .then((d) => live && (setData(d), setError(null)))
      .catch((e: ApiFailure) => live && setError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [path, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, loading, reload };
}
