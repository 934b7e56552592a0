import type { Directory, Organization } from '@app/directory';
import { ApiError } from '../../http/api-error';
import type { FieldErrors } from '../../http/validate-body';

/** The organization an admin call names; 404 when there is none. */
export async function requireOrganization(directory: Directory, id: string): Promise<Organization> {
  const org = await directory.getOrganization(id);
  if (!org) throw ApiError.notFound('organization');
  return org;
}

/** 422 with every field's problem, when there is any. */
export function failOnErrors(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
}
