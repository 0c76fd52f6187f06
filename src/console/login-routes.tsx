// The console's login and logout (docs/interface.md section 14): an admin key, through the admin authenticator, into a session kept in the store.
import type { Request, RequestHandler, Response } from 'express';
import type { AdminKey } from '../auth/authenticate-key.js';
import { hashKey } from '../auth/key-secret.js';
import { formatStamp } from '../clock.js';
import { AppError } from '../errors.js';
import { CONSOLE_PATHS, type ConsoleDeps } from './console-deps.js';
import { Notice, Page } from './layout.js';
import { sendPage } from './render.js';
import { assertSameOrigin, consolePath, signedInOf, type ConsoleSessions } from './session.js';
import { newSessionId, sessionIdHash, sessionSetCookie, signedSessionId } from './session-cookie.js';

/** The login form's field names. */
export const LOGIN_FIELDS = { key: 'key', next: 'next' } as const;

const PLAN_KEY_MESSAGE = 'This API key has a plan: the console opens only with an admin key (threatgate keys create --admin).';

function LoginPage({ next, message }: { next: string | undefined; message?: string | undefined }) {
  return (
    <Page title="Log in">
      {message !== undefined && (
        <div id="login-problem">
          <Notice kind="error">{message}</Notice>
        </div>
      )}
      <form class="login" method="post" action={CONSOLE_PATHS.login}>
        {next !== undefined && <input type="hidden" name={LOGIN_FIELDS.next} value={next} />}
        <label for="login-key">Admin key</label>
        <input
          id="login-key"
          name={LOGIN_FIELDS.key}
          type="password"
          autocomplete="current-password"
          required
          spellcheck={false}
          aria-describedby={message === undefined ? 'login-help' : 'login-problem login-help'}
        />
        <p id="login-help" class="help">
          An admin key, made with <code>threatgate keys create --admin</code>. Keys with a plan open the lookup API and TAXII, not the console.
        </p>
        <button type="submit">Log in</button>
      </form>
    </Page>
  );
}

export interface LoginRoutes {
  showLogin: RequestHandler;
  login: RequestHandler;
  logout: RequestHandler;
}

export function createLoginRoutes(deps: ConsoleDeps, sessions: ConsoleSessions): LoginRoutes {
  const { store, clock, config } = deps;
  const sessionSeconds = Math.round(config.console.sessionHours * 3600);

  const showLogin: RequestHandler = (req, res) => {
    const next = consolePath(req.query.next);
    if (signedInOf(res) !== undefined) return res.redirect(303, next ?? CONSOLE_PATHS.feeds);
    sendPage(res, <LoginPage next={next} />);
  };

  /**
   * The key goes through the admin authenticator, so a failed login counts for the client address
   * as any failed authentication does, and past `auth.failuresPerMinute` the address gets 429s
   * before its key is read. A refusal re-shows the form with the reason and the same status.
   */
  const login: RequestHandler = async (req, res) => {
    assertSameOrigin(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = consolePath(body[LOGIN_FIELDS.next]);
    const key = typeof body[LOGIN_FIELDS.key] === 'string' ? (body[LOGIN_FIELDS.key] as string).trim() : '';
    if (key === '') return sendPage(res, <LoginPage next={next} message="Enter an admin key." />, 400);
    let admin: AdminKey;
    try {
      admin = await deps.authenticate({ address: req.ip, key });
    } catch (error) {
      if (!(error instanceof AppError) || ![401, 403, 429].includes(error.status)) throw error;
      res.set(error.headers);
      return sendPage(res, <LoginPage next={next} message={error.status === 403 ? PLAN_KEY_MESSAGE : error.message} />, error.status);
    }
    const now = clock.now();
    const sid = newSessionId();
    await store.deleteExpiredConsoleSessions(now);
    await store.createConsoleSession({ sidHash: sessionIdHash(sid), keyHash: hashKey(key), createdAt: formatStamp(now), expiresMs: now + sessionSeconds * 1000 });
    deps.logger.info('console login', { client: admin.keyId });
    res.setHeader('Set-Cookie', sessionSetCookie(signedSessionId(sid, await sessions.secret()), { secure: req.secure, maxAgeSeconds: sessionSeconds }));
    res.redirect(303, next ?? CONSOLE_PATHS.feeds);
  };

  /** Ends the session in the store (its cookie, kept or copied, opens nothing after) and clears the cookie. */
  const logout: RequestHandler = async (req: Request, res: Response) => {
    const session = signedInOf(res)!;
    await store.deleteConsoleSession(sessionIdHash(session.sid));
    deps.logger.info('console logout', { client: session.keyId });
    res.setHeader('Set-Cookie', sessionSetCookie('', { secure: req.secure, maxAgeSeconds: 0 }));
    res.redirect(303, CONSOLE_PATHS.login);
  };

  return { showLogin, login, logout };
}
