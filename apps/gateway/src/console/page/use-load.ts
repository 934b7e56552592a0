import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, type ApiFailure } from './api';

/**
 * One GET of the console API, loaded when `path` changes and again on `reload()`. When the GET of a new path fails, the
 * data of the path before is not given with the error: a list under "could not load" would read as the filtered one.
 */
export function useLoad<T>(path: string | null): { data: T | null; error: ApiFailure | null; loading: boolean; reload: () => void } {
  const [loaded, setLoaded] = useState<{ path: string | null; data: T | null }>({ path: null, data: null });
  const [error, setError] = useState<ApiFailure | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setLoading(true);
    api<T>('GET', path)
      .then((data) => live && (setLoaded({ path, data }), setError(null)))
      .catch((e: ApiFailure) => live && setError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [path, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  const data = error && loaded.path !== path ? null : loaded.data;
  return { data, error, loading, reload };
}
