import { paramsSentAsLists } from './one-value-params';

describe('paramsSentAsLists', () => {
  const names = ['status', 'per_page'];
  it('names the parameters of the list sent bracketed or repeated, and no other', () => {
    expect(paramsSentAsLists({ 'status[]': 'failed', 'per_page[2]': '3', 'other[]': 'x', page: '2' }, names)).toEqual({
      status: ['The status field takes one value: send status= once.'],
      per_page: ['The per page field takes one value: send per_page= once.'],
    });
    expect(Object.keys(paramsSentAsLists({ status: ['failed', 'completed'] }, names))).toEqual(['status']);
  });
  it('takes a single value, and names that only look bracketed', () => {
    expect(paramsSentAsLists({ status: 'failed', per_page: '3', '[status]': 'x', 'status[': 'y', status_x: ['a', 'b'] }, names)).toEqual(
      {},
    );
  });
});
