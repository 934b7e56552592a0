import { fileExtension } from './file-extension';

describe('fileExtension', () => {
  it.each([
    ['report.csv', 'csv'],
    ['Report.CSV', 'csv'],
    ['archive.2024.xlsx', 'xlsx'],
    ['photo.JPEG', 'jpeg'],
    ['dir.csv/notes', ''],
    ['csv', ''],
    ['.csv', ''],
    ['report.', ''],
    ['report.csv/', ''],
    ['', ''],
  ])('%j has the extension %j', (name, extension) => {
    expect(fileExtension(name)).toBe(extension);
  });
});
