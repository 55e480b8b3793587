/** Header names of both signature schemes (lower case, as Node exposes them). */
export const HEADER_TIMESTAMP = 'x-pp-timestamp';
export const HEADER_NONCE = 'x-pp-nonce';
export const HEADER_SIGNATURE = 'x-pp-signature';
export const HEADER_REQUEST_ID = 'x-pp-request-id';
