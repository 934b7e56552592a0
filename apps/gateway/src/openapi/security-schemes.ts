/** Security scheme names, for `@ApiBearerAuth(...)` on controllers and the document builders. */
export const API_KEY_SCHEME = 'apiKey';
export const ADMIN_TOKEN_SCHEME = 'adminToken';
