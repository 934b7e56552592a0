/**
 * The lease a run's upload is received under (the embedded `PUT /files/...` route), and the
 * one the sweeper takes to expire the run's upload window: while an upload that began in
 * time is arriving, its run is not expired, and an expiry in progress is not raced by a
 * new upload (docs/decisions.md, "An upload that began in time is not expired under it").
 */
export const uploadLease = (runId: string): string => `upload:${runId}`;

/** How long an upload's lease outlives its last renewal: how soon after the receiving process died its run can expire. */
export const UPLOAD_LEASE_TTL_MS = 30_000;
