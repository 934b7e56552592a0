import type { FieldDefinition, MappingRule } from '@app/contracts';

/**
 * Accents stripped and letters NFKD does not take apart written as their ASCII pairs: "Straße" is "strasse", not
 * "strae" (and a word "stra" with an "e" after it). Arabic is written one way (withoutArabicArticle, foldedArabic).
 */
const folded = (s: string): string =>
  foldedArabic(
    withoutArabicArticle(s)
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/ß/g, 'ss')
      .replace(/[łŁ]/g, (c) => (c === 'ł' ? 'l' : 'L'))
      .replace(/[æÆ]/g, (c) => (c === 'æ' ? 'ae' : 'AE'))
      .replace(/[œŒ]/g, (c) => (c === 'œ' ? 'oe' : 'OE'))
      .replace(/[øØ]/g, (c) => (c === 'ø' ? 'o' : 'O')),
  );

const ARABIC = /[\u0600-\u06ff]/;

/**
 * The article "ال" taken off the start of a word of three letters or more, once, as written: before NFKD, which
 * writes "إلكتروني" with a plain alef and would make its first letters look like the article. "البريد" is "بريد";
 * "الإلكتروني", "الالكتروني" and "إلكتروني" all read "الكتروني" once folded. A column is named with it or without it
 * alike. A word starts after anything that is not a letter or a mark of one (a Persian letter is a letter).
 */
const withoutArabicArticle = (s: string): string => (ARABIC.test(s) ? s.replace(/(?<![\p{L}\p{M}])ال(?=(?:\p{L}\p{M}*){3})/gu, '') : s);

/**
 * Arabic as the names are compared: the vowel signs, the hamza and madda NFKD takes off an alef ("إ" is "ا") and the
 * stretching line left out; the Persian forms of yeh and kaf, alef maqsura and teh marbuta as one letter each; and
 * Arabic-Indic digits as the digits 0-9 ("Email ١" is "Email 1").
 */
const foldedArabic = (s: string): string =>
  ARABIC.test(s)
    ? s
        .replace(/[\u064b-\u065f\u0670\u0640]/g, '')
        .replace(/[ىیۍ]/g, 'ي')
        .replace(/ک/g, 'ك')
        .replace(/ة/g, 'ه')
        .replace(/[\u0660-\u0669\u06f0-\u06f9]/g, (d) => String((d.charCodeAt(0) - 0x0660) % 0x90))
    : s;

/** Lower-case, accents stripped, everything but letters and digits removed (letters of any script). */
export const normalizeName = (s: string): string =>
  folded(s)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

/** The words of a name, lower case; "e-mail" and "e mail" are one word, "email", as written without the hyphen. */
const tokens = (s: string): string[] => {
  const words = folded(s)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return words.flatMap((w, i) => (w === 'e' && words[i + 1] === 'mail' ? [] : w === 'mail' && words[i - 1] === 'e' ? ['email'] : [w]));
};

/**
 * Names people commonly give the same column, in the Latin-script languages of the review page (a file from Madrid
 * says "Correo electrónico" and "Apellidos" to a schema written in English), and in Arabic (ARABIC_NAMES). Each group
 * is one concept; a field and a header that fall in the same group match almost as well as equal names. Words that
 * mean another thing in English too ("data", "via", "cap", "handy", "portable", "cargo", "land") are left out: a
 * header must not be taken for a field it only spells like.
 */
const LATIN_GROUPS: string[] = [
  'email emailaddress mail courriel correo correoelectronico adresseemail adressemail adressecourriel emailadresse indirizzoemail postaelettronica emailadres mailadres adresemail',
  'firstname givenname forename first vorname prenom nombre nome voornaam imie',
  'lastname surname familyname last nachname familienname nom nomdefamille apellido apellidos cognome achternaam nazwisko sobrenome',
  'name fullname contactname customername nombrecompleto nomcomplet nomecompleto naam imieinazwisko nomducontact nomduclient nombredelcliente nombredelcontacto nomedocliente nomedelcliente nomcliente nombrecliente',
  'phone phonenumber telephone telephonenumber tel mobile mobilephone mobilenumber cell cellphone cellnumber telefon telefono telefoon telefonnummer telefoonnummer numerodetelefono numerodetelephone numeroditelefono numertelefonu movil celular cellulare mobiel mobiltelefon telefonomovil',
  'company companyname organization organisation employer firm business firma empresa entreprise societe unternehmen azienda bedrijf compania',
  'address street streetaddress address1 addressline1 strasse direccion adresse indirizzo adres anschrift domicilio',
  'city town locality stadt ort ville ciudad localidad citta plaats miasto woonplaats',
  'zip zipcode postalcode postcode plz postal codigopostal codepostal postleitzahl kodpocztowy',
  'country countrycode nation pays pais paese kraj',
  'state province region county provincia bundesland provincie wojewodztwo',
  'birthdate dateofbirth dob birthday geburtsdatum fechadenacimiento fechanacimiento datedenaissance datadinascita datadenascimento geboortedatum dataurodzenia',
  'id identifier externalid reference ref',
  'amount total sum betrag importe monto montant importo bedrag kwota',
  'date day datum fecha',
  'website url homepage web sitioweb siteweb sitoweb webseite paginaweb',
  'title jobtitle position role puesto titel functie stanowisko',
  'notes note comment comments remarks notas observaciones comentarios commentaires remarques bemerkungen notizen anmerkungen opmerkingen uwagi',
];

/**
 * Arabic column names, by the first word of the group they join, written as people write them (with the article or
 * without, with hamza or without: foldedArabic makes those one), a name of several words whole, names split by "|".
 * A word that is also the start of other names ("اسم" of "اسم الشركة", "البريد" of "البريد الإلكتروني") names its
 * concept only alone (ALONE_ONLY). "الموقع" (a place, or a website) and "القيمة" (a value) are left out.
 */
const ARABIC_NAMES: Record<string, string> = {
  email:
    'البريد الإلكتروني|بريد إلكتروني|البريد الالكتروني|بريد الكتروني|عنوان البريد الإلكتروني|عنوان البريد الالكتروني|الإيميل|إيميل|البريد',
  firstname: 'الاسم الأول|اسم أول|الاسم الشخصي',
  lastname: 'اسم العائلة|اسم الأسرة|الاسم الأخير|اللقب',
  name: 'الاسم|الاسم الكامل|الاسم بالكامل|اسم العميل|اسم الزبون',
  phone: 'الهاتف|رقم الهاتف|الجوال|رقم الجوال|الموبايل|رقم الموبايل|المحمول|الهاتف المحمول|رقم المحمول|تليفون|رقم التليفون|التلفون',
  company: 'الشركة|اسم الشركة|المؤسسة|اسم المؤسسة|جهة العمل',
  address: 'العنوان|عنوان الشارع|الشارع',
  city: 'المدينة',
  zip: 'الرمز البريدي|الرقم البريدي|الكود البريدي',
  country: 'الدولة|البلد',
  state: 'المنطقة|المحافظة|الولاية|الإقليم',
  birthdate: 'تاريخ الميلاد|تاريخ الولادة',
  id: 'المعرف|الرقم المرجعي|المرجع',
  amount: 'المبلغ|الإجمالي|المجموع',
  date: 'التاريخ',
  website: 'الموقع الإلكتروني|الموقع الالكتروني|موقع الويب',
  title: 'المسمى الوظيفي|الوظيفة|المنصب',
  notes: 'ملاحظات|ملاحظة|تعليقات',
};

const SYNONYM_GROUPS: string[][] = LATIN_GROUPS.map((g) => {
  const words = g.split(' ');
  return [...words, ...(ARABIC_NAMES[words[0]]?.split('|') ?? [])].map(normalizeName);
});

const groupOf = new Map<string, number>();
SYNONYM_GROUPS.forEach((g, i) => g.forEach((n) => groupOf.has(n) || groupOf.set(n, i)));

/**
 * Words that say whose or which value a column holds, not what it is: "Customer Email", "Email (work)", "Teléfono del
 * cliente" are e-mails and phones. "number" is not one: "Street number" is no street.
 */
const QUALIFIERS = new Set([
  ...'work home personal private primary main business office customer client contact the of your cliente del de du la le el des kunde klant van'.split(
    ' ',
  ),
  // The customer's, work, home, personal, main, private.
  ...'العميل الزبون العمل المنزل الشخصي الرئيسي الخاص'.split(' ').map(normalizeName),
]);

/**
 * Concept words that name their concept only as the whole name: beside other words they mean another thing ("Nom du
 * contact" is the contact's full name, not a last name; "First contact" is a date, "Customer ID" a number of ours).
 */
const ALONE_ONLY = new Set([
  ...'nom nombre nome naam first last name tel cell web ref id sum day total mail'.split(' '),
  // A name, the mail (post), the address, the total.
  ...'اسم البريد العنوان الإجمالي'.split(' ').map(normalizeName),
]);

/** Past this many words a name is a sentence, not a column's name: only its whole is compared. */
const MAX_CONCEPT_WORDS = 8;
/** The longest synonym is three words ("fecha de nacimiento", "date of birth"): no longer run is looked up. */
const MAX_RUN_WORDS = 3;

/**
 * The concept (synonym group) a name stands for: `whole` when the name is a group's word once normalised. Else, for a
 * name of a few words: a run of one to three words that is a group's word, where every other word only says whose or
 * which (a qualifier) or is a word of the same group: "Mobile phone number", "Customer Email", "Email (work)",
 * "Teléfono móvil", "Código postal del cliente". Any other word makes it another thing, and the name no concept: "Seller
 * email address" is not the record's e-mail, "E-mail opt-in" a flag, "Last order date" no last name.
 */
function conceptOf(name: string): { group: number; whole: boolean } | null {
  const whole = groupOf.get(normalizeName(name));
  if (whole !== undefined) return { group: whole, whole: true };
  const words = tokens(name);
  if (words.length < 2 || words.length > MAX_CONCEPT_WORDS) return null;
  for (let run = Math.min(MAX_RUN_WORDS, words.length - 1); run >= 1; run--) {
    for (let at = 0; at + run <= words.length; at++) {
      const group = groupOf.get(words.slice(at, at + run).join(''));
      if (group === undefined || (run === 1 && ALONE_ONLY.has(words[at]))) continue;
      const rest = [...words.slice(0, at), ...words.slice(at + run)];
      if (rest.every((w) => QUALIFIERS.has(w) || groupOf.get(w) === group)) return { group, whole: false };
    }
  }
  return null;
}

/**
 * Similarity of two names' words (Dice coefficient), the qualifiers aside ("Customer ID" is as near "id" as "ID" is).
 * Weighted 0.7: a one-word field and a two-word header sharing that word score 0.47, under MIN_MATCH_SCORE, since the
 * other word most often makes it another thing ("Phone type", "Company size", "Email status", "Birth date" for "date").
 */
function tokenSimilarity(a: string[], b: string[]): number {
  const [x, y] = [withoutQualifiers(a), withoutQualifiers(b)];
  if (x.length === 0 || y.length === 0) return 0;
  const setY = new Set(y);
  const shared = x.filter((t) => setY.has(t)).length;
  return (2 * shared) / (x.length + y.length);
}
const withoutQualifiers = (words: string[]): string[] => {
  const named = words.filter((w) => !QUALIFIERS.has(w));
  return named.length > 0 ? named : words;
};
const TOKEN_WEIGHT = 0.7;

/** A name read once for every comparison it takes part in (a schema of 1,000 fields meets a file of 1,000 columns). */
interface ReadName {
  normal: string;
  tokens: string[];
  concept: { group: number; whole: boolean } | null;
}
const readName = (name: string): ReadName => ({ normal: normalizeName(name), tokens: tokens(name), concept: conceptOf(name) });

const LATIN_LETTER = /\p{Script=Latin}/gu;
const OTHER_LETTER = /(?!\p{Script=Latin})\p{L}/gu;
const LETTER = /\p{L}/u;

/**
 * A name read whole and, when it mixes Latin letters with another script's, each script's part read apart too: a
 * bilingual header ("Name / الاسم", "邮箱 Email", "Телефон (Phone)") names its column in both, and either part may be
 * the one a field's name or label says.
 */
function readingsOf(name: string): ReadName[] {
  const whole = readName(name);
  if (!LETTER.test(name)) return [whole];
  const latin = name.replace(OTHER_LETTER, ' ');
  const other = name.replace(LATIN_LETTER, ' ');
  return LETTER.test(latin) && LETTER.test(other) ? [whole, readName(latin), readName(other)] : [whole];
}

/** How well a header names a field, 0..1, from the field's name and label. */
export function matchScore(fieldName: string, field: FieldDefinition, header: string): number {
  return scoreOf(candidatesOf(fieldName, field), readingsOf(header));
}

const candidatesOf = (fieldName: string, field: FieldDefinition): ReadName[] =>
  [fieldName, field.label ?? ''].filter(Boolean).flatMap(readingsOf);

/** The best a reading of the header scores against the field's. */
const scoreOf = (candidates: ReadName[], header: ReadName[]): number => Math.max(0, ...header.map((h) => readingScore(candidates, h)));

function readingScore(candidates: ReadName[], h: ReadName): number {
  if (!h.normal) return 0;
  let best = 0;
  for (const c of candidates) {
    if (c.normal === h.normal) return 1;
    // The same concept: named by a word of its group on both sides, else inside a longer name on one of them.
    if (c.concept && h.concept && c.concept.group === h.concept.group)
      best = Math.max(best, c.concept.whole && h.concept.whole ? 0.9 : 0.75);
    best = Math.max(best, TOKEN_WEIGHT * tokenSimilarity(c.tokens, h.tokens));
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
  const readHeaders = headers.map(readingsOf);
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
