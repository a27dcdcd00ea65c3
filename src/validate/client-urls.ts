import type { GivenUrls } from './given-urls.js';
import type { Judging } from './judging.js';
import type { Scope } from './scope.js';

// client.given-urls: a client uses the checkout and upload URLs the order endpoints gave, as given
// (seed §1: the codes are opaque, never constructed). Judged on the request alone.

const SHAPES = { checkout: 'checkout/{code}', files: 'files/{code}' } as const;
const FROM = { checkout: 'checkout.setupUrl', files: 'items[].files.*.uploadUrl' } as const;

function ofOrder(order: string | undefined): string {
  return order === undefined ? 'an order answer' : `order ${JSON.stringify(order)}`;
}

export function checkGivenUrl(
  scope: Extract<Scope, { kind: 'interface' | 'misaddressed' }>,
  method: string,
  path: string,
  given: GivenUrls,
  out: Judging,
): void {
  const { operation } = scope;
  if (scope.kind === 'misaddressed') {
    out.facts.givenUrlJudged = true;
    out.add(
      'client.given-urls',
      'request',
      `${method} ${scope.path} is not the shape of a URL the order gives (${SHAPES[operation]}): use ${FROM[operation]} as given, never build it`,
    );
    return;
  }
  if (given.empty) return;
  if (given.given(path)) {
    out.facts.givenUrlJudged = true;
    return;
  }
  const { code } = scope;
  const value = given.orderValue(code);
  if (value) {
    out.facts.givenUrlJudged = true;
    out.add(
      'client.given-urls',
      'request',
      `${method} ${SHAPES[operation].replace('{code}', code)} puts a value of ${ofOrder(value.order)} where the code belongs: use ${FROM[operation]} from the order's answer as given`,
    );
    return;
  }
  const known = given.byCode(code);
  if (!known) return;
  out.facts.givenUrlJudged = true;
  if (known.operation !== operation) {
    // The code of one URL under the other operation: a client that swapped or rebuilt them.
    out.add(
      'client.given-urls',
      'request',
      `${method} ${path} puts the code of the ${known.operation === 'checkout' ? 'checkout' : 'upload'} URL ${ofOrder(known.order)} gave (${known.path}) under ${operation}/: use ${FROM[operation]} as given`,
    );
  } else if (known.code !== code || known.path !== path) {
    out.add(
      'client.given-urls',
      'request',
      `${method} ${path} is not the URL ${ofOrder(known.order)} gave (${known.path}): use ${FROM[known.operation]} as given`,
    );
  }
}
