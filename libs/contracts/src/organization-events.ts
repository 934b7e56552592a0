/**
 * What the people of an organization did in the console, and what the operator did for it:
 * the audit log (docs/console.md, "Audit log"). One stream per organization,
 * `organization-<uuid>`, in the event store beside the runs' streams: kept and replayable
 * like them, but never published on the run-events topic. No event holds a secret.
 */

/** Who did it: a member (with the e-mail they had then), or the operator through the admin API or CLI. */
export type AuditActor = { member_id: string; email: string } | { operator: true };

export interface OrganizationEventMap {
  /** `name`: what its people call the key, null when unnamed (absent in events recorded before keys had names). */
  ApiKeyIssued: { api_key_id: string; prefix: string | null; name?: string | null };
  /** `prefix`, `name`: what was revoked or deleted, by the name the console shows (absent in events recorded before they were added). */
  ApiKeyRevoked: { api_key_id: string; prefix?: string | null; name?: string | null };
  WebhookSecretRevealed: Record<string, never>;
  WebhookSecretRotated: Record<string, never>;
  WebhookUrlChanged: { url: string | null };
  WebhookTestSent: { url: string; delivered: boolean };
  SchemaSaved: { schema_id: string; name: string; created: boolean };
  SchemaDeleted: { schema_id: string; name?: string };
  ProviderSaved: { provider_id: string; name: string; created: boolean };
  ProviderDeleted: { provider_id: string; name?: string };
  /** `password_reset`: the address was already a member; the link sets a new password for that account. */
  MemberInvited: { invitation_id: string; email: string; role: string; password_reset?: boolean };
  /** A member set a new password through such a link (their sessions were ended). `invited_by`: who made the link (null: the operator). */
  MemberPasswordReset: { invitation_id: string; member_id: string; email: string; invited_by?: string | null };
  /** `email` and `role`: whom the invitation was for (absent in events recorded before they were added). */
  InvitationRevoked: { invitation_id: string; email?: string; role?: string };
  InvitationAccepted: { invitation_id: string; member_id: string; email: string; role: string };
  /** `email` and `previous_role`: whose role it was and what it had been (absent in events recorded before they were added). */
  MemberRoleChanged: { member_id: string; role: string; email?: string; previous_role?: string };
  /** `email` and `role`: who was removed, with the role they had (absent in events recorded before they were added). */
  MemberRemoved: { member_id: string; email?: string; role?: string };
  DeliveryResent: { run_id: string; delivery_id: string; event: string };
  /** The operator set how many review preparations the organization may make (null: unlimited). */
  ReviewQuotaChanged: { review_preparations: number | null };
}

export type OrganizationEventType = keyof OrganizationEventMap;

export const ORGANIZATION_EVENT_TYPES = [
  'ApiKeyIssued',
  'ApiKeyRevoked',
  'WebhookSecretRevealed',
  'WebhookSecretRotated',
  'WebhookUrlChanged',
  'WebhookTestSent',
  'SchemaSaved',
  'SchemaDeleted',
  'ProviderSaved',
  'ProviderDeleted',
  'MemberInvited',
  'InvitationRevoked',
  'InvitationAccepted',
  'MemberPasswordReset',
  'MemberRoleChanged',
  'MemberRemoved',
  'DeliveryResent',
  'ReviewQuotaChanged',
] as const satisfies readonly OrganizationEventType[];

/** Every organization event's data carries who did it. */
export type OrganizationEventData<K extends OrganizationEventType> = OrganizationEventMap[K] & { actor: AuditActor };

export const ORGANIZATION_STREAM_PREFIX = 'organization-';
export const organizationStreamId = (organizationId: string): string => `${ORGANIZATION_STREAM_PREFIX}${organizationId}`;
