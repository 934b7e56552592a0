/** An id for a field's elements: field names may hold any character, ids here only [A-Za-z0-9_-]. */
export const fieldId = (name: string): string =>
  `f-${Array.from(name)
    .map((c) => (/[A-Za-z0-9_-]/.test(c) ? c : `_${c.codePointAt(0)}`))
    .join('')}`;
