/**
 * A table's head and rows: each row's number first, then every field, each bad cell with its
 * reason written out. Keyed by the answer it shows, so a new answer starts it afresh (and closes
 * any open cell editor, whose row may have changed).
 */
import { numbers } from '../i18n';
import type { NumberedRow } from '../state';
import type { Field } from '../types';
import { ValueCell } from './value-cell';

interface Props {
  fields: Field[];
  rows: NumberedRow[];
  numberHeading: string;
  /** Bad cells can be fixed in place (the review is open). */
  fixable: boolean;
}

export function RowsTable({ fields, rows, numberHeading, fixable }: Props) {
  return (
    <>
      <thead>
        <tr>
          <th scope="col">{numberHeading}</th>
          {fields.map((f) => (
            <th scope="col" title={f.label}>
              {f.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr>
            <th scope="row">{numbers.format(row.number)}</th>
            {fields.map((f) => (
              <ValueCell cell={row.cells[f.name]} field={f} row={row.number} fixable={fixable} />
            ))}
          </tr>
        ))}
      </tbody>
    </>
  );
}
