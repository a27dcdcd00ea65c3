import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'undici';

// One headless Chromium page driven over the DevTools protocol, for tests that walk pages as a
// customer does: navigate, look, click a button, follow where the browser is sent.

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

/** Headless Chromium as this machine allows it: no sandbox as root, no background network. */
export const HEADLESS_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The environment Chromium runs in: its home and XDG folders inside its temporary profile, since
 * it writes crash-report settings and dconf files under the home folder whatever --user-data-dir
 * says, and no test writes outside a temporary folder.
 */
export function chromiumEnvironment(profile: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOME: profile,
    XDG_CONFIG_HOME: join(profile, 'config'),
    XDG_CACHE_HOME: join(profile, 'cache'),
  };
}

interface Pending {
  resolve(value: Record<string, unknown>): void;
  reject(error: Error): void;
}

type Listener = (params: Record<string, unknown>) => void;

/** Bound on every wait: a page that never loads fails the test instead of hanging it. */
const WAIT_LIMIT_MS = 30_000;
/** How long a click that led nowhere is given before the element is clicked once more. */
const RECLICK_AFTER_MS = 5_000;

export class ChromiumPage {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<Listener>>();

  private constructor(
    private readonly browser: ChildProcess,
    private readonly socket: WebSocket,
    private readonly profile: string,
  ) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data));
      if (message.id !== undefined) {
        const waiting = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) waiting?.reject(new Error(`${message.error.message} (${message.error.code})`));
        else waiting?.resolve(message.result ?? {});
      } else for (const listener of this.listeners.get(message.method) ?? []) listener(message.params ?? {});
    });
  }

  /** Starts Chromium as this machine allows it (no sandbox as root, no background network) on a blank page. */
  static async launch(windowSize = '1000,800'): Promise<ChromiumPage> {
    const profile = mkdtempSync(join(tmpdir(), 'print-conformance-browser-walk-'));
    const browser = spawn(
      CHROMIUM ?? 'chromium',
      [
        ...HEADLESS_FLAGS,
        `--user-data-dir=${profile}`,
        `--window-size=${windowSize}`,
        '--remote-debugging-address=127.0.0.1',
        '--remote-debugging-port=0',
        'about:blank',
      ],
      // Its own process group: closing it ends its helper processes too.
      { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: chromiumEnvironment(profile) },
    );
    let printed = '';
    const endpoint = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${printed}`)), WAIT_LIMIT_MS);
      browser.stderr?.on('data', (chunk) => {
        printed += chunk;
        const found = /DevTools listening on ws:\/\/([^/\s]+)\//.exec(printed)?.[1];
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      browser.on('exit', (code) => reject(new Error(`Chromium exited (${code}): ${printed}`)));
    });
    const targets = (await (await fetch(`http://${endpoint}/json/list`)).json()) as {
      type: string;
      webSocketDebuggerUrl: string;
    }[];
    const target = targets.find((t) => t.type === 'page');
    if (!target) throw new Error('Chromium opened no page');
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    const page = new ChromiumPage(browser, socket, profile);
    await page.command('Page.enable');
    await page.command('Runtime.enable');
    return page;
  }

  command(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** The next event of this kind; start waiting before the action that causes it. */
  nextEvent(method: string): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const listeners = this.listeners.get(method) ?? new Set<Listener>();
      this.listeners.set(method, listeners);
      const timer = setTimeout(() => {
        listeners.delete(once);
        reject(new Error(`no ${method} within ${WAIT_LIMIT_MS} ms`));
      }, WAIT_LIMIT_MS);
      const once: Listener = (params) => {
        clearTimeout(timer);
        listeners.delete(once);
        resolve(params);
      };
      listeners.add(once);
    });
  }

  /** Opens a URL and waits until its page has loaded. */
  async open(url: string): Promise<void> {
    const loaded = this.nextEvent('Page.loadEventFired');
    await this.command('Page.navigate', { url });
    await loaded;
  }

  /** The value of a JavaScript expression evaluated in the page (a promise's, once it settles). */
  async evaluate<T>(expression: string): Promise<T> {
    const { result } = (await this.command('Runtime.evaluate', {
      expression,
      returnByValue: true,
      awaitPromise: true,
    })) as {
      result: { value: T };
    };
    return result.value;
  }

  /** Clicks the middle of an element (its first line) with the mouse, as a person does, and waits for the page it leads to. */
  async clickAndFollow(selector: string): Promise<void> {
    const loaded = this.nextEvent('Page.loadEventFired');
    let navigating = false;
    this.nextEvent('Page.frameStartedLoading').then(
      () => {
        navigating = true;
      },
      () => {},
    );
    await this.clickOn(selector);
    // A page that is still laying itself out (a live list taking a new row) may move the element
    // between finding it and the click, which then lands beside it and leads nowhere: when no
    // navigation has even started after a while, the element is found and clicked once more.
    const settled = await Promise.race([loaded.then(() => true), sleep(RECLICK_AFTER_MS).then(() => false)]);
    if (settled) return;
    if (!navigating && (await this.present(selector))) await this.clickOn(selector);
    await loaded;
  }

  private present(selector: string): Promise<boolean> {
    return this.evaluate<boolean>(`!!document.querySelector(${JSON.stringify(selector)})`);
  }

  /** A mouse click on the middle of the element's first line, once nothing else is at that point (or a second on). */
  private async clickOn(selector: string): Promise<void> {
    let box: { x: number; y: number; hit: boolean } | null = null;
    for (let tries = 0; tries < 10; tries += 1) {
      box = await this.evaluate<{ x: number; y: number; hit: boolean } | null>(
        // The first line's box: the middle of a link wrapped over two lines may be beside both.
        `(() => { const element = document.querySelector(${JSON.stringify(selector)});
          const r = element?.getClientRects()[0];
          if (!r) return null;
          const x = r.x + r.width / 2, y = r.y + r.height / 2;
          return { x, y, hit: document.elementFromPoint(x, y)?.closest(${JSON.stringify(selector)}) === element }; })()`,
      );
      if (!box || box.hit) break;
      await sleep(100);
    }
    if (!box) throw new Error(`no ${selector} on the page`);
    for (const type of ['mousePressed', 'mouseReleased'])
      await this.command('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 });
  }

  /** A PNG of what the page shows. */
  async screenshot(): Promise<Buffer> {
    const { data } = (await this.command('Page.captureScreenshot', { format: 'png' })) as { data: string };
    return Buffer.from(data, 'base64');
  }

  async close(): Promise<void> {
    this.socket.close();
    if (this.browser.exitCode === null && this.browser.signalCode === null) {
      const exited = new Promise((resolve) => this.browser.once('exit', resolve));
      process.kill(-(this.browser.pid as number), 'SIGTERM');
      await exited;
    }
    // Chromium's helper processes may still be writing to the profile as the browser exits.
    rmSync(this.profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
