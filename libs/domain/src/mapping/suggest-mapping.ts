import type { FieldDefinition, MappingRule } from '@app/contracts';

/** Lower-case, accents stripped, everything but letters and digits removed. */
export const normalizeName = (s: string): string =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');

const tokens = (s: string): string[] =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/**
 * Names people commonly give the same column. Each group is one concept; a field and a
 * header that fall in the same group match almost as well as equal names.
 */
const SYNONYM_GROUPS: string[][] = [
  ['email', 'emailaddress', 'mail', 'email_address', 'e-mail', 'courriel', 'correo'],
  ['firstname', 'givenname', 'forename', 'first', 'vorname', 'prenom', 'nombre'],
  ['lastname', 'surname', 'familyname', 'last', 'nachname', 'nom', 'apellido'],
  ['name', 'fullname', 'contactname', 'customername'],
  ['phone', 'phonenumber', 'telephone', 'tel', 'mobile', 'cell', 'cellphone', 'telefon'],
  ['company', 'companyname', 'organization', 'organisation', 'employer', 'firm', 'business', 'firma'],
  ['address', 'street', 'streetaddress', 'address1', 'addressline1', 'strasse'],
  ['city', 'town', 'locality', 'stadt', 'ort', 'ville'],
  ['zip', 'zipcode', 'postalcode', 'postcode', 'plz', 'postal'],
  ['country', 'countrycode', 'nation', 'land', 'pays'],
  ['state', 'province', 'region', 'county'],
  ['birthdate', 'dateofbirth', 'dob', 'birthday', 'geburtsdatum'],
  ['id', 'identifier', 'externalid', 'reference', 'ref'],
  ['amount', 'total', 'price', 'sum', 'value', 'betrag'],
  ['date', 'day', 'datum', 'fecha'],
  ['website', 'url', 'homepage', 'web'],
  ['title', 'jobtitle', 'position', 'role'],
  ['notes', 'note', 'comment', 'comments', 'remarks', 'description'],
].map((g) => g.map(normalizeName));

const groupOf = new Map<string, number>();
SYNONYM_GROUPS.forEach((g, i) => g.forEach((n) => groupOf.has(n) || groupOf.set(n, i)));

/** Similarity of two tokens lists (Dice coefficient). */
function tokenSimilarity(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const setB = new Set(b);
  const shared = a.filter((t) => setB.has(t)).length;
  return (2 * shared) / (a.length + b.length);
}

/** How well a header names a field, 0..1, from the field's name and label. */
export function matchScore(fieldName: string, field: FieldDefinition, header: string): number {
  const h = normalizeName(header);
  if (!h) return 0;
  let best = 0;
  for (const candidate of [fieldName, field.label ?? ''].filter(Boolean)) {
    const c = normalizeName(candidate);
    if (c === h) return 1;
    const gc = groupOf.get(c);
    if (gc !== undefined && gc === groupOf.get(h)) best = Math.max(best, 0.9);
    best = Math.max(best, 0.8 * tokenSimilarity(tokens(candidate), tokens(header)));
  }
  return best;
}

/** Below this a header is not offered for a field. */
export const MIN_MATCH_SCORE = 0.5;

/**
 * Heuristic mapping: the best-scoring (field, header) pairs are taken first, each header
 * used at most once; fields with no header scoring at least MIN_MATCH_SCORE map to null.
 * Pure and deterministic: ties go to a header written exactly as the field's name or label
 * (fields `email`, `Email`, `EMAIL` and headers of the same names were crossed over, since all
 * nine pairs are equal once normalised), then to the earlier field, then the earlier header.
 */
export function suggestMapping(fields: Record<string, FieldDefinition>, headers: string[]): MappingRule {
  const fieldNames = Object.keys(fields);
  const pairs: { field: string; header: string; score: number; exact: boolean; order: number }[] = [];
  fieldNames.forEach((field, fi) =>
    headers.forEach((header, hi) => {
      const score = matchScore(field, fields[field], header);
      const exact = header.trim() === field || (!!fields[field].label && header.trim() === fields[field].label);
      if (score >= MIN_MATCH_SCORE) pairs.push({ field, header, score, exact, order: fi * headers.length + hi });
    }),
  );
  pairs.sort((a, b) => b.score - a.score || Number(b.exact) - Number(a.exact) || a.order - b.order);
  const mapping: MappingRule = Object.fromEntries(fieldNames.map((f) => [f, null]));
  const usedHeaders = new Set<string>();
  for (const p of pairs) {
    if (mapping[p.field] !== null || usedHeaders.has(p.header)) continue;
    mapping[p.field] = p.header;
    usedHeaders.add(p.header);
  }
  return mapping;
}
