import { UsageError } from '../findings/usage-error.js';
import { absoluteUrl } from './service-url.js';

export { absoluteUrl };

// Where the service lives when only its checkout or upload URL is given: the base under which
// `checkout/{code}` and `files/{code}` stand. The URLs themselves are still used exactly as given.

function baseOf(value: string, parent: string): string | undefined {
  const url = new URL(value);
  const match = new RegExp(`^(.*/)${parent}/[^/]+/?$`, 'i').exec(url.pathname);
  if (!match) return undefined;
  url.pathname = match[1] as string;
  url.search = '';
  url.hash = '';
  return url.href;
}

/**
 * The base URL of the run: --base-url, else the one the checkout (or upload) URL stands under.
 * Undefined only when no URL was given at all, which is when the embedded service is the target.
 */
export function baseUrlOf(options: { baseUrl?: string; checkoutUrl?: string; uploadUrl?: string }): string | undefined {
  const given = absoluteUrl(options.baseUrl, '--base-url');
  if (given) return given.endsWith('/') ? given : `${given}/`;
  const checkout = absoluteUrl(options.checkoutUrl, '--checkout-url');
  const upload = absoluteUrl(options.uploadUrl, '--upload-url');
  if (checkout === undefined && upload === undefined) return undefined;
  const derived = (checkout && baseOf(checkout, 'checkout')) ?? (upload && baseOf(upload, 'files'));
  if (derived) return derived;
  const option = checkout ? '--checkout-url' : '--upload-url';
  throw new UsageError(
    `${option} ${checkout ?? upload} does not end in ${checkout ? 'checkout' : 'files'}/{code}, so the service's base URL cannot be told from it: give --base-url too`,
  );
}
