import { paginate } from './pagination';

describe('paginate', () => {
  it('lists Laravel\'s window of pages in meta.links, a gap as "..." with no URL, whatever the list\'s length', () => {
    const page = paginate(['x'], 1_000, { page: 500, perPage: 1, offset: 499 }, 'http://127.0.0.1/v1/schemas', { q: 'a b' });
    const links = page.meta.links;
    expect(links.map((l) => l.label)).toEqual([
      '&laquo; Previous',
      '1',
      '2',
      '...',
      ...['497', '498', '499', '500', '501', '502', '503'],
      '...',
      '999',
      '1000',
      'Next &raquo;',
    ]);
    expect(links.filter((l) => l.label === '...')).toEqual([
      { url: null, label: '...', active: false },
      { url: null, label: '...', active: false },
    ]);
    expect(links.filter((l) => l.active).map((l) => l.url)).toEqual(['http://127.0.0.1/v1/schemas?q=a+b&page=500&per_page=1']);
    expect(links[0].url).toBe('http://127.0.0.1/v1/schemas?q=a+b&page=499&per_page=1');
    expect(page.links.last).toBe('http://127.0.0.1/v1/schemas?q=a+b&page=1000&per_page=1');
  });

  it('lists every page of a short list', () => {
    const page = paginate([], 3, { page: 1, perPage: 1, offset: 0 }, '/p');
    expect(page.meta.links.map((l) => l.label)).toEqual(['&laquo; Previous', '1', '2', '3', 'Next &raquo;']);
  });
});
