import { requireString } from './admin-validation';
import type { FieldErrors } from '../http/validate-body';

describe('requireString', () => {
  const check = (name: string, max?: number) => {
    const errors: FieldErrors = {};
    const value = requireString({ name }, 'name', errors, max === undefined ? {} : { max });
    return { value, errors };
  };

  it('counts characters as a person does: 255 emoji are a name of 255 characters, 256 are too many', () => {
    expect(check('😀'.repeat(255)).value).toBe('😀'.repeat(255));
    expect(check('😀'.repeat(256)).errors).toEqual({ name: ['The name field must not be greater than 255 characters.'] });
    expect(check('a'.repeat(256)).errors).toEqual({ name: ['The name field must not be greater than 255 characters.'] });
    expect(check('a'.repeat(255)).errors).toEqual({});
    expect(check('日本'.repeat(20), 40).value).toBe('日本'.repeat(20));
    expect(check('𠀀'.repeat(41), 40).errors).toEqual({ name: ['The name field must not be greater than 40 characters.'] });
  });
});
