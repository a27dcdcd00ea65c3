import {
  astralReturnUrl,
  checkoutRequestBody,
  combiningReturnUrl,
  escapedReturnUrl,
  multiByteReturnUrl,
  returnUrlOfLength,
  trailingSpaceReturnUrl,
} from './checkout-request.js';
import { type Format, MEDIA_TYPE_OF } from './config.js';
import type { ProbeRun } from './probe-run.js';

// checkout.return-url.length: the ASCII boundaries, and the ways services miscount. Length is
// counted in UTF-16 code units, as .NET counts a string: an empty string is too short, 512 units
// of multi-byte characters fit (a service counting UTF-8 bytes refuses them), and 513 units that
// are 512 code points do not (a service counting code points takes them), nor do 513 units that
// NFC makes 512 (a service normalising first takes them), nor 513 units that end in a space or
// hold a %20 (a service that trims or decodes before counting takes them).

const LENGTH_RULE = 'checkout.return-url.length';

interface LengthProbe {
  url: (marker: string) => string;
  answer: 'accepted' | 'rejected';
  what: string;
}

const ascii = (length: number, answer: LengthProbe['answer']): LengthProbe => ({
  url: (marker) => returnUrlOfLength(length, marker),
  answer,
  what: length === 0 ? 'an empty ReturnUrl' : `a ReturnUrl of ${length} characters`,
});

export const LENGTH_PROBES: LengthProbe[] = [
  ascii(0, 'rejected'),
  ascii(4, 'rejected'),
  ascii(5, 'accepted'),
  ascii(512, 'accepted'),
  ascii(513, 'rejected'),
  {
    url: (marker) => multiByteReturnUrl(512, marker),
    answer: 'accepted',
    what: 'a ReturnUrl of 512 UTF-16 units written with "é" (more than 512 UTF-8 bytes)',
  },
  {
    url: (marker) => astralReturnUrl(513, marker),
    answer: 'rejected',
    what: 'a ReturnUrl of 513 UTF-16 units that are 512 code points (an emoji is two units)',
  },
  {
    url: (marker) => combiningReturnUrl(513, marker),
    answer: 'rejected',
    what: 'a ReturnUrl of 513 UTF-16 units holding "e" and a combining accent (512 once NFC-normalised)',
  },
  {
    url: (marker) => trailingSpaceReturnUrl(513, marker),
    answer: 'rejected',
    what: 'a ReturnUrl of 513 characters whose last is a space (512 once trimmed)',
  },
  {
    url: (marker) => escapedReturnUrl(513, marker),
    answer: 'rejected',
    what: 'a ReturnUrl of 513 characters holding a %20 escape (511 once decoded)',
  },
];

export async function probeReturnUrlLengths(run: ProbeRun, format: Format, id: string): Promise<void> {
  const type = MEDIA_TYPE_OF[format];
  const headers = { accept: type, 'content-type': type };
  for (const [index, probe] of LENGTH_PROBES.entries()) {
    await run.probe(
      {
        method: 'POST',
        url: run.config.checkoutUrl,
        headers,
        body: checkoutRequestBody(format, probe.url(`${id}-${format}-length${index}`)),
      },
      {
        format,
        expect: {
          rule: LENGTH_RULE,
          answer: probe.answer,
          what: `a set-up in ${format.toUpperCase()} with ${probe.what}`,
        },
        ignore: [LENGTH_RULE],
      },
    );
  }
}
