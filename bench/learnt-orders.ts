import type { Document } from '../src/validate/document.js';
import { GivenUrls } from '../src/validate/given-urls.js';

// A long proxy run learns every order answer's URLs, bounded to the newest ones. Learning one must
// cost the same once the bound is reached as before: CPU per order of the last orders over that of
// the first, in-process, for four times as many orders as the bound keeps.

const ORDERS = 100_000;
const MEASURED = 10_000;

const order = (n: number): Document =>
  ({
    format: 'json',
    value: {
      id: `order-${n}`,
      checkout: { setupUrl: `https://api.example.test/v2/checkout/Code${n}x` },
      items: [
        {
          productId: 'boek-hc-a5-sts',
          files: {
            content: { uploadUrl: `https://api.example.test/v2/files/Content${n}` },
            cover: { uploadUrl: `https://api.example.test/v2/files/Cover${n}` },
          },
        },
      ],
    },
  }) as Document;

function microsPerOrder(given: GivenUrls, from: number, to: number): number {
  const started = process.cpuUsage();
  for (let n = from; n < to; n += 1) given.learn(order(n));
  const used = process.cpuUsage(started);
  return (used.user + used.system) / (to - from);
}

export function benchLearntOrders() {
  const given = new GivenUrls();
  const first = microsPerOrder(given, 0, MEASURED);
  microsPerOrder(given, MEASURED, ORDERS - MEASURED);
  const last = microsPerOrder(given, ORDERS - MEASURED, ORDERS);
  return {
    orders: ORDERS,
    firstMicrosPerOrder: Number(first.toFixed(1)),
    lastMicrosPerOrder: Number(last.toFixed(1)),
    lastOverFirst: Number((last / first).toFixed(2)),
  };
}
