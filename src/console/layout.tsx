// The console's document: head, skip link, navigation and logout, the page's heading and content; and the pieces every page's forms share.
import type { ComponentChildren } from 'preact';
import { CONSOLE_PATHS, type PageContext } from './console-deps.js';
import { CSRF_FIELD } from './session-cookie.js';

/** The session's CSRF token as a hidden field: put one in every form that posts. */
export function CsrfField({ ctx }: { ctx: PageContext }) {
  return <input type="hidden" name={CSRF_FIELD} value={ctx.csrf} />;
}

const NAV: ReadonlyArray<{ label: string; href: string; current: (path: string) => boolean }> = [
  { label: 'Feeds', href: CONSOLE_PATHS.feeds, current: (path) => path === '/console' || path === '/console/' || path.startsWith('/console/feeds/') },
  { label: 'Value', href: CONSOLE_PATHS.value, current: (path) => path.startsWith(CONSOLE_PATHS.value) },
  { label: 'Explore', href: CONSOLE_PATHS.explore, current: (path) => path.startsWith(CONSOLE_PATHS.explore) },
  { label: 'Allowlist', href: CONSOLE_PATHS.allowlist, current: (path) => path.startsWith(CONSOLE_PATHS.allowlist) },
  { label: 'Exports', href: CONSOLE_PATHS.exports, current: (path) => path.startsWith(CONSOLE_PATHS.exports) },
];

export interface PageProps {
  /** The page's heading, and the first part of the document's title. */
  title: string;
  /** The signed-in request's context; absent (the login page, a refusal before sign-in): no navigation, no logout. */
  ctx?: PageContext | undefined;
  /** Reloads the page after this many seconds (a "Pull now" being waited for); works without script. */
  refreshSeconds?: number | undefined;
  children?: ComponentChildren;
}

/**
 * A whole HTML document that reads and works without script: links and forms only, every control
 * reachable by keyboard in reading order, the skip link first. The one script (console.js) only
 * enhances, and nothing is styled inline (the CSP allows neither).
 */
export function Page({ title, ctx, refreshSeconds, children }: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {refreshSeconds !== undefined && <meta http-equiv="refresh" content={String(refreshSeconds)} />}
        <title>{`${title} · threatgate console`}</title>
        <link rel="icon" href={`${CONSOLE_PATHS.assets}/favicon.svg`} type="image/svg+xml" />
        <link rel="stylesheet" href={`${CONSOLE_PATHS.assets}/console.css`} />
        <script src={`${CONSOLE_PATHS.assets}/console.js`} defer />
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="site-header">
          <p class="brand">
            <a href={CONSOLE_PATHS.feeds}>threatgate console</a>
          </p>
          {ctx && (
            <nav aria-label="Console">
              <ul>
                {NAV.map((item) => (
                  <li key={item.href}>
                    <a href={item.href} aria-current={item.current(ctx.path) ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {ctx && (
            <form class="logout" method="post" action={CONSOLE_PATHS.logout}>
              <CsrfField ctx={ctx} />
              <span class="signed-in">
                Signed in with key <code>{ctx.keyId}</code>
              </span>
              <button type="submit">Log out</button>
            </form>
          )}
        </header>
        <main id="main" tabIndex={-1}>
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}

/**
 * A message about what just happened: `error` and `warning` are announced at once (role alert), the
 * others politely (role status). The kind is said in words as well as by colour.
 */
export function Notice({ kind, children }: { kind: 'ok' | 'info' | 'warning' | 'error'; children: ComponentChildren }) {
  const word = { ok: 'Done', info: 'Note', warning: 'Warning', error: 'Error' }[kind];
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' || kind === 'warning' ? 'alert' : 'status'}>
      <strong>{word}:</strong> {children}
    </div>
  );
}
