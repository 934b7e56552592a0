/** Fields every log line written while handling one thing carries (snake_case, as in the API). */
export type LogFields = Record<string, string | number | null | undefined>;
