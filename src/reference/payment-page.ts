// The pages of the reference service's payment screen: plain HTML that works in a browser without
// JavaScript (a form per outcome), so that a client team's browser tests can walk the whole flow.
// They are the customer's screens, not the interface: no rule of the catalog judges them.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text, a ReturnUrl or an address field placed in a page, never read as markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] as string);
}

export interface PaymentPage {
  status: number;
  html: string;
}

function page(status: number, title: string, body: string): PaymentPage {
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #222; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .4rem 1rem; }
dt { color: #666; } dd { margin: 0; overflow-wrap: anywhere; }
.outcomes { display: flex; gap: .75rem; margin-top: 2rem; }
button { font-size: 1rem; padding: .6rem 1.2rem; border-radius: .3rem; border: 1px solid #888; cursor: pointer; }
#pay { background: #1a7f37; color: #fff; border-color: #1a7f37; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`;
  return { status, html };
}

export interface PaymentView {
  orderId: string;
  checkoutCode: string;
  amount: number;
  returnUrl?: string;
  /** When set, the pay button is declined (a payment that fails). */
  declines: boolean;
}

/** The screen the customer is sent to: what is due, for which order, and one button per outcome. */
export function paymentForm(view: PaymentView): PaymentPage {
  const returning = view.returnUrl === undefined ? 'none: the checkout was set up without one' : view.returnUrl;
  const decline = view.declines
    ? '<p>This service was started with the payment-fails fault: paying ends in <strong>Failed</strong>.</p>\n'
    : '';
  return page(
    200,
    'Payment',
    `<dl>
<dt>Amount</dt><dd id="amount">${view.amount.toFixed(2)}</dd>
<dt>Order</dt><dd id="order">${escapeHtml(view.orderId)}</dd>
<dt>Checkout</dt><dd id="checkout">${escapeHtml(view.checkoutCode)}</dd>
<dt>Returns to</dt><dd id="return-url">${escapeHtml(returning)}</dd>
</dl>
${decline}<div class="outcomes">
<form method="post" action="pay"><button id="pay" type="submit">Pay</button></form>
<form method="post" action="cancel"><button id="cancel" type="submit">Cancel</button></form>
<form method="post" action="fail"><button id="fail" type="submit">Fail the payment</button></form>
</div>`,
  );
}

/** After an outcome, when there is nowhere to send the browser. */
export function outcomeWithoutReturn(status: string, returnUrl: string | undefined): PaymentPage {
  const why =
    returnUrl === undefined
      ? 'The checkout was set up without a ReturnUrl, so there is no page of the shop to return to.'
      : `The ReturnUrl <code>${escapeHtml(returnUrl)}</code> is not an absolute http or https URL, so the browser is not sent there.`;
  return page(
    200,
    `Payment ${status}`,
    `<p>The payment status is now <strong id="status">${status}</strong>.</p>\n<p>${why}</p>`,
  );
}

/** A payment URL whose payment is over: reloading it, or posting an outcome again, changes nothing. */
export function paymentOver(status: string): PaymentPage {
  return page(
    409,
    'This payment is over',
    `<p>This payment has already ended with status <strong id="status">${status}</strong>; nothing was changed.</p>
<p>To pay again, the shop sets the checkout up again and sends you to the new payment URL.</p>`,
  );
}

/** A payment URL of an earlier set-up of the checkout. */
export function paymentSuperseded(): PaymentPage {
  return page(
    410,
    'This payment URL is no longer valid',
    `<p>The checkout was set up again after this payment URL was handed out; only the PaymentUrl of the latest set-up works.</p>
<p>Go back to the shop and start the payment again.</p>`,
  );
}

/** A checkout that was never set up has a payment URL in its GET answer, but nothing to pay yet. */
export function paymentNotSetUp(): PaymentPage {
  return page(
    409,
    'This checkout is not set up',
    '<p>Nothing can be paid before the shop sets the checkout up (POST checkout/{code}).</p>',
  );
}

export function paymentUnknown(): PaymentPage {
  return page(404, 'No such payment', '<p>This service never handed out this payment URL.</p>');
}

export function paymentMethodNotAllowed(allowed: string): PaymentPage {
  return page(405, 'Method not allowed', `<p>This address takes ${escapeHtml(allowed)} only.</p>`);
}

export function paymentFromElsewhere(): PaymentPage {
  return page(
    403,
    'Not from this payment page',
    '<p>An outcome is taken only from the payment page itself, not from another site.</p>',
  );
}
