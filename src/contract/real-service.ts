import type { JsonSchema, SchemaName } from './schemas.js';

// What the real service is known to do beyond the seed (its reference pages, guides and recorded
// answers): facts to describe, not rules to fail a service on. The OpenAPI export states them so
// that a tool reading it expects what the real service answers.

/** Members the real service adds to an answer, by schema and JSON path of the object they stand in. */
export const ANSWER_EXTRAS: Partial<Record<SchemaName, Record<string, Record<string, JsonSchema>>>> = {
  checkout: {
    'billing/address': {
      email: {
        type: 'string',
        examples: ['billing@example.com'],
        description:
          'Added by the real service to the billing address of its answers; the request does not send it. Not in the interface description, so the conformance rules list it without judging it.',
      },
    },
  },
};

/** Status codes of success: a set-up answers 201 with Location (the real service) or 200; an upload 200 or 201. */
export const SET_UP_STATUSES = [201, 200] as const;
export const UPLOAD_STATUSES = [200, 201] as const;

/**
 * Refusals, each answered with a message and a few hints. The real service documents 400, 401 and
 * 403; 404 (an unknown code) and 415 (a body type not taken) are what the reference service answers
 * where the rules ask only for a 4xx.
 */
export const REFUSALS = {
  400: 'Invalid input: a ReturnUrl out of range, a body that does not parse, a file that is not a PDF, PNG or JPEG.',
  401: 'Missing, expired or invalid access token.',
  403: 'Not allowed in the current state of the order.',
  404: 'Unknown checkout or upload code.',
  415: 'A request body of a type the service does not take.',
} as const;

/** Token endpoint under the base URL: OAuth 2.0 client credentials, answered with a bearer token. */
export const TOKEN_PATH = 'oauth';
export const TOKEN_LIFETIME_SECONDS = 14399;

/** Codes as the real service's order pages give them (`checkout.setupUrl`, `files.*.uploadUrl`). */
export const EXAMPLE_CHECKOUT_CODE = '5L2zKMnOqp6A15GoP909Z';
export const EXAMPLE_UPLOAD_CODE = '9qkW3TtX1fZr7yLm2Hc0P';
