import ExcelJS from 'exceljs';
import type { AppConfig } from '@app/config';
import type { SchemaRecord } from '@app/directory';
import { DEFAULT_TABLE_LIMITS } from '@app/tabular';
import { SchemaTrialService } from './schema-trial';

/** "Try it" counts a workbook's problems under the limits its inspection applied, as a run's reads do. */
describe('try it on a workbook under a raised column limit', () => {
  const schema: SchemaRecord = {
    id: 's1',
    organization_id: 'o1',
    name: 'People',
    fields: { email: { description: 'Email', data_type: 'email', is_required: true } },
    created_at: '2026-12-07T00:00:00.000Z',
    updated_at: '2026-12-07T00:00:00.000Z',
  };

  it('reads a sheet of 1,200 columns to the end and counts its rows', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Wide');
    const filler = (prefix: string) => Array.from({ length: 1199 }, (_, i) => `${prefix}${i + 1}`);
    ws.addRow([...filler('Note '), 'Email']);
    ws.addRow([...filler('n'), 'ada@example.com']);
    ws.addRow([...filler('n'), 'not an e-mail']);
    const file = Buffer.from(await wb.xlsx.writeBuffer());
    const trials = new SchemaTrialService({ tableLimits: { ...DEFAULT_TABLE_LIMITS, maxColumns: 2000 } } as AppConfig);

    const trial = await trials.try(schema, file, 'wide.xlsx');
    expect(trial.headers).toHaveLength(1200);
    expect(trial.suggested_mapping).toEqual({ email: 'Email' });
    expect(trial).toMatchObject({ rows_checked: 2, problems: { rows_with_problems: 1 } });
  });
});
