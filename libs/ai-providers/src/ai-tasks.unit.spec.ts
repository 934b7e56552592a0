import type { FieldDefinition } from '@app/contracts';
import { MAPPING_SAMPLE_CELL_CHARS, MAPPING_SAMPLE_ROWS, suggestMappingWithProvider } from './ai-tasks';
import type { AiVendorClient, StructuredRequest } from './ai-vendor.port';

describe('a mapping suggestion asked of a provider', () => {
  const fields: Record<string, FieldDefinition> = {
    email: { description: 'E-mail', data_type: 'email', is_required: true },
    name: { description: 'Name', data_type: 'string', is_required: false },
  };

  it('sends the columns and a few rows cut to them, each cell cut short, and keeps the checked answer', async () => {
    const asked: StructuredRequest[] = [];
    const client: AiVendorClient = {
      generateJson: async (request) => {
        asked.push(request);
        return { mapping: { email: 'E-mail', name: 'Nobody' } };
      },
    };
    // Rows of a sheet saved from a used range far wider than its data: thousands of empty cells past the columns.
    const rows = Array.from({ length: 8 }, (_, i) => [`p${i}@x.org`, 'N'.repeat(500), ...Array<string>(5000).fill('')]);
    const answer = await suggestMappingWithProvider(client, fields, ['E-mail', 'Name'], rows);
    const sent = JSON.parse(asked[0].text ?? '') as { columns: string[]; sample_rows: string[][] };
    expect(sent.columns).toEqual(['E-mail', 'Name']);
    expect(sent.sample_rows).toEqual(rows.slice(0, MAPPING_SAMPLE_ROWS).map((row) => [row[0], 'N'.repeat(MAPPING_SAMPLE_CELL_CHARS)]));
    expect(answer).toEqual({ mapping: { email: 'E-mail' }, dropped: ['"name": unknown header "Nobody"'] });
  });
});
