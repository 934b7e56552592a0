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
 * Names people commonly give the same column, in the languages of the review page (a file from Madrid says "Correo
 * electrónico" and "Apellidos" to a schema written in English). Each group is one concept; a field and a header that
 * fall in the same group match almost as well as equal names. Words that mean another thing in English too ("data",
 * "via", "stato") are left out: a header must not be taken for a field it only spells like.
 */
const SYNONYM_GROUPS: string[][] = [
  [
    'email',
    'emailaddress',
    'mail',
    'email_address',
    'e-mail',
    'courriel',
    'correo',
    'correoelectronico',
    'adresseemail',
    'adressemail',
    'adressecourriel',
    'emailadresse',
    'indirizzoemail',
    'postaelettronica',
    'emailadres',
    'mailadres',
    'adresemail',
  ],
  ['firstname', 'givenname', 'forename', 'first', 'vorname', 'prenom', 'nombre', 'nome', 'voornaam', 'imie'],
  [
    'lastname',
    'surname',
    'familyname',
    'last',
    'nachname',
    'familienname',
    'nom',
    'nomdefamille',
    'apellido',
    'apellidos',
    'cognome',
    'achternaam',
    'nazwisko',
    'sobrenome',
  ],
  ['name', 'fullname', 'contactname', 'customername', 'nombrecompleto', 'nomcomplet', 'nomecompleto', 'naam', 'imieinazwisko'],
  [
    'phone',
    'phonenumber',
    'telephone',
    'tel',
    'mobile',
    'cell',
    'cellphone',
    'telefon',
    'telefono',
    'telefoon',
    'telefonnummer',
    'numerodetelefono',
    'numerodetelephone',
    'numeroditelefono',
    'telefoonnummer',
    'numertelefonu',
    'movil',
    'celular',
    'handy',
    'portable',
    'cellulare',
    'mobiel',
  ],
  [
    'company',
    'companyname',
    'organization',
    'organisation',
    'employer',
    'firm',
    'business',
    'firma',
    'empresa',
    'entreprise',
    'societe',
    'unternehmen',
    'azienda',
    'bedrijf',
    'compania',
  ],
  [
    'address',
    'street',
    'streetaddress',
    'address1',
    'addressline1',
    'strasse',
    'direccion',
    'adresse',
    'indirizzo',
    'adres',
    'anschrift',
    'domicilio',
  ],
  ['city', 'town', 'locality', 'stadt', 'ort', 'ville', 'ciudad', 'localidad', 'citta', 'plaats', 'miasto', 'woonplaats'],
  ['zip', 'zipcode', 'postalcode', 'postcode', 'plz', 'postal', 'codigopostal', 'codepostal', 'postleitzahl', 'cap', 'kodpocztowy'],
  ['country', 'countrycode', 'nation', 'land', 'pays', 'pais', 'paese', 'kraj'],
  ['state', 'province', 'region', 'county', 'provincia', 'bundesland', 'provincie', 'wojewodztwo'],
  [
    'birthdate',
    'dateofbirth',
    'dob',
    'birthday',
    'geburtsdatum',
    'fechadenacimiento',
    'fechanacimiento',
    'datedenaissance',
    'datadinascita',
    'datadenascimento',
    'geboortedatum',
    'dataurodzenia',
  ],
  ['id', 'identifier', 'externalid', 'reference', 'ref'],
  ['amount', 'total', 'price', 'sum', 'value', 'betrag', 'importe', 'monto', 'montant', 'importo', 'bedrag', 'kwota'],
  ['date', 'day', 'datum', 'fecha'],
  ['website', 'url', 'homepage', 'web', 'sitioweb', 'siteweb', 'sitoweb', 'webseite', 'paginaweb'],
  ['title', 'jobtitle', 'position', 'role', 'cargo', 'puesto', 'titel', 'functie', 'stanowisko'],
  [
    'notes',
    'note',
    'comment',
    'comments',
    'remarks',
    'description',
    'notas',
    'observaciones',
    'comentarios',
    'commentaires',
    'remarques',
    'bemerkungen',
    'notizen',
    'anmerkungen',
    'opmerkingen',
    'uwagi',
  ],
].map((g) => g.map(normalizeName));

const groupOf = new Map<string, number>();
SYNONYM_GROUPS.forEach((g, i) => g.forEach((n) => groupOf.has(n) || groupOf.set(n, i)));

/**
 * Words that say whose or which value a column holds, not what it is: "Customer Email", "Email (work)", "Teléfono del
 * cliente" are e-mails and phones. A header of one concept word and such words only names that concept.
 */
const QUALIFIERS = new Set([
  'work',
  'home',
  'personal',
  'private',
  'primary',
  'main',
  'business',
  'office',
  'customer',
  'client',
  'contact',
  'number',
  'no',
  'nr',
  'num',
  'the',
  'of',
  'your',
  'cliente',
  'del',
  'de',
  'du',
  'la',
  'le',
  'el',
  'des',
  'kunde',
  'klant',
  'van',
  'principal',
]);

/**
 * The concept (synonym group) a name stands for: `whole` when the name is a group's word once normalised; else a run
 * of two words or more inside it that is one ("phone number" in "Mobile phone number", "código postal" in "Código
 * postal de envío"), or one concept word with qualifiers only. A single word inside a longer name is not enough:
 * "Last order date" is no last name, "First purchase" no first name.
 */
function conceptOf(name: string): { group: number; whole: boolean } | null {
  const whole = groupOf.get(normalizeName(name));
  if (whole !== undefined) return { group: whole, whole: true };
  const words = tokens(name);
  for (let run = words.length - 1; run >= 2; run--) {
    for (let at = 0; at + run <= words.length; at++) {
      const group = groupOf.get(words.slice(at, at + run).join(''));
      if (group !== undefined) return { group, whole: false };
    }
  }
  const named = words.filter((w) => !QUALIFIERS.has(w));
  const group = named.length === 1 && words.length > 1 ? groupOf.get(named[0]) : undefined;
  return group === undefined ? null : { group, whole: false };
}

/** Similarity of two tokens lists (Dice coefficient). */
function tokenSimilarity(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const setB = new Set(b);
  const shared = a.filter((t) => setB.has(t)).length;
  return (2 * shared) / (a.length + b.length);
}

/** A name read once for every comparison it takes part in (a schema of 1,000 fields meets a file of 1,000 columns). */
interface ReadName {
  normal: string;
  tokens: string[];
  concept: { group: number; whole: boolean } | null;
}
const readName = (name: string): ReadName => ({ normal: normalizeName(name), tokens: tokens(name), concept: conceptOf(name) });

/** How well a header names a field, 0..1, from the field's name and label. */
export function matchScore(fieldName: string, field: FieldDefinition, header: string): number {
  return scoreOf(candidatesOf(fieldName, field), readName(header));
}

const candidatesOf = (fieldName: string, field: FieldDefinition): ReadName[] =>
  [fieldName, field.label ?? ''].filter(Boolean).map(readName);

function scoreOf(candidates: ReadName[], h: ReadName): number {
  if (!h.normal) return 0;
  let best = 0;
  for (const c of candidates) {
    if (c.normal === h.normal) return 1;
    // The same concept: named by a word of its group on both sides, else inside a longer name on one of them.
    if (c.concept && h.concept && c.concept.group === h.concept.group)
      best = Math.max(best, c.concept.whole && h.concept.whole ? 0.9 : 0.75);
    best = Math.max(best, 0.8 * tokenSimilarity(c.tokens, h.tokens));
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
  const readHeaders = headers.map(readName);
  fieldNames.forEach((field, fi) => {
    const candidates = candidatesOf(field, fields[field]);
    headers.forEach((header, hi) => {
      const score = scoreOf(candidates, readHeaders[hi]);
      const exact = header.trim() === field || (!!fields[field].label && header.trim() === fields[field].label);
      if (score >= MIN_MATCH_SCORE) pairs.push({ field, header, score, exact, order: fi * headers.length + hi });
    });
  });
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
