export const URL_SIGNER = Symbol('URL_SIGNER');
