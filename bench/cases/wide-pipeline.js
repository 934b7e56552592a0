/* The CSV case for a schema unlike the bench's own (issue 28: "hold every target for any schema
 * a customer may bring"): a wide file (24 columns, 20 of them mapped) under a schema that uses
 * every kind of field the service checks and converts: four date patterns (three with a
 * date_format, one datetime), numbers in a German number format, integers, plain decimals,
 * booleans, a picklist, countries by name, phone numbers written nationally, URLs, e-mails and
 * strings with transformations. Most values differ from row to row (ids, e-mails, phones,
 * amounts, timestamps), as in a real export; names, cities and the picklist repeat.
 *
 * Timed and compared as the `csv` case is: upload -> review-ready plus approve -> output-ready,
 * against a bare papaparse object parse of the same file in the same run. */
const fs = require('node:fs');
const path = require('node:path');
const { writeCsv } = require('../lib/write-csv');
const { throughService, figures } = require('./csv-pipeline');

const FIELDS = {
  id: { description: 'customer number', data_type: 'integer', is_required: true },
  email: {
    description: 'e-mail',
    data_type: 'email',
    is_required: true,
    transformations: { trim_whitespace: { enabled: true }, lowercase: { enabled: true } },
  },
  first_name: { description: 'first name', data_type: 'string', is_required: true, transformations: { uppercase: { enabled: true } } },
  last_name: { description: 'last name', data_type: 'string', is_required: true, transformations: { trim_whitespace: { enabled: true } } },
  birth_date: {
    description: 'birthday',
    data_type: 'date',
    is_required: false,
    transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } },
  },
  signed_up: {
    description: 'sign-up day',
    data_type: 'date',
    is_required: false,
    transformations: { date_format: { enabled: true, from: 'MMM d, yyyy', to: 'yyyy-MM-dd' } },
  },
  renewal: {
    description: 'renewal day',
    data_type: 'date',
    is_required: false,
    transformations: { date_format: { enabled: true, from: 'yyyyMMdd', to: 'dd.MM.yyyy' } },
  },
  last_login: { description: 'last login', data_type: 'datetime', is_required: false, format: "yyyy-MM-dd'T'HH:mm:ss" },
  amount: { description: 'balance', data_type: 'number', is_required: false, number_format: { locale: 'de-DE' } },
  orders: { description: 'orders', data_type: 'integer', is_required: false },
  score: { description: 'score', data_type: 'number', is_required: false },
  active: { description: 'active', data_type: 'boolean', is_required: false },
  tier: {
    description: 'tier',
    data_type: 'enum',
    is_required: true,
    allowed_values: [{ value: 'platinum' }, { value: 'gold' }, { value: 'silver' }, { value: 'bronze' }],
  },
  country: { description: 'country', data_type: 'country', is_required: false },
  phone: { description: 'phone', data_type: 'phone', is_required: false, default_region: 'DE' },
  website: { description: 'website', data_type: 'url', is_required: false },
  city: { description: 'city', data_type: 'string', is_required: false },
  postcode: { description: 'postcode', data_type: 'string', is_required: false },
  street: { description: 'street', data_type: 'string', is_required: false, transformations: { trim_whitespace: { enabled: true } } },
  notes: { description: 'notes', data_type: 'text', is_required: false },
};

const HEADER = [...Object.keys(FIELDS), 'source', 'batch', 'legacy_id', 'comment'].join(',');
const FIRST = ['Anna', 'Jörg', 'Léa', 'Mehmet', 'Olga', 'Piotr', 'Sven', 'Zoë', 'Émile', 'Hiroshi', 'María', 'Noah'];
const LAST = ['Müller', 'Schmidt', 'Dubois', 'Yılmaz', 'Nowak', 'García', 'Rossi', 'Jansen', 'Öztürk', 'Smith', 'Kowalski'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const TIERS = ['platinum', 'gold', 'silver', 'bronze'];
const COUNTRIES = ['Germany', 'France', 'Netherlands', 'Poland', 'Spain', 'Italy', 'Austria'];
const CITIES = ['"Köln, DE"', 'Berlin', 'Paris', 'Amsterdam', 'Kraków', 'Madrid', 'Roma', 'Wien'];
const pad = (n, width = 2) => String(n).padStart(width, '0');

/** Row n (from 1) of the wide file, as its CSV cells (quoted where they need it). */
function wideCells(n) {
  const i = n - 1;
  const day = 1 + (i % 28);
  const month = 1 + (Math.floor(i / 28) % 12);
  return [
    100000 + i,
    ` Customer.${i}@Example.com `,
    FIRST[i % FIRST.length],
    ` ${LAST[(i * 7) % LAST.length]} `,
    `${pad(day)}/${pad(month)}/${1940 + (i % 70)}`,
    `"${MONTHS[month - 1]} ${day}, ${2000 + (i % 25)}"`,
    `${2025 + (i % 3)}${pad(month)}${pad(day)}`,
    `2026-${pad(month)}-${pad(day)}T${pad(i % 24)}:${pad((i * 7) % 60)}:${pad((i * 13) % 60)}`,
    `"${Math.floor(i / 3).toLocaleString('de-DE')},${pad(i % 100)}"`,
    i % 500,
    ((i % 1000) / 7).toFixed(3),
    i % 3 === 0 ? 'no' : 'yes',
    TIERS[i % TIERS.length],
    COUNTRIES[i % COUNTRIES.length],
    `030 ${2000000 + ((i * 7919) % 7999999)}`,
    `https://shop${i % 5000}.example.com/customers/${i}`,
    CITIES[i % CITIES.length],
    pad(10000 + ((i * 31) % 89999), 5),
    ` Hauptstraße ${1 + (i % 200)} `,
    i % 10 === 0 ? `"said ""call back"" on ${day}.${month}."` : '',
    'crm-export',
    Math.floor(i / 10000),
    `L-${i}`,
    '',
  ];
}

function generateWideCsv(file, rows) {
  return writeCsv(file, HEADER, rows, (n) => wideCells(n).join(','));
}

async function widePipeline({ work, rows }) {
  const file = path.join(work, 'input-wide.csv');
  await generateWideCsv(file, rows);
  const bytes = fs.statSync(file).size;
  const measured = await throughService({ work, file, fields: FIELDS, dataDir: 'data-wide', filename: 'customers.csv' });
  if (measured.run.rowsWritten !== rows) throw new Error(`wide: ${measured.run.rowsWritten} rows written of ${rows}`);
  return {
    name: `Wide CSV ${rows} rows (${(bytes / 1e6).toFixed(0)} MB, ${HEADER.split(',').length} columns, ${Object.keys(FIELDS).length} fields of every kind)`,
    ...figures(measured),
    ratio: measured.ratio,
    target: 0.35,
    peakRssMb: measured.peakRssMb,
  };
}

module.exports = { widePipeline, generateWideCsv, wideCells, WIDE_FIELDS: FIELDS };
