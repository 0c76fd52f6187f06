// The console's data pages (docs/interface.md section 14): a value's provenance with its sightings and "Seen", and the allowlist with its
// dry run before each addition.
// Mounted by the console router under /console past the session, so every POST here has passed its Origin and CSRF checks.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { createOperatorAllowlist, checkedEntry, checkedReason, type OperatorAllowlist } from '../admin/operator-allowlist.js';
import { AppError, BadRequestError } from '../errors.js';
import { methodNotAllowed } from '../http/method-guard.js';
import { ALLOWLIST_FIELDS, AllowlistPage, PreviewPage, type AddForm } from './allowlist-page.js';
import { CONSOLE_PATHS, pageContext, type ConsoleDeps } from './console-deps.js';
import { sendPage } from './render.js';
import { seenParam } from './seen-form.js';
import { MAX_VALUE, VALUE_FIELD, ValuePage } from './value-page.js';
import { createValueReader, createValueSeen } from './value-seen.js';

/** The query the allowlist page is redirected to after a change, naming it (the page checks it against the list before saying so). */
const OUTCOME = { added: 'added', retired: 'retired', removed: 'removed' } as const;

/** A form field given at most once (the body parser gives a repeated field as an array); absent is ''. */
function formField(req: Request, name: string): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new BadRequestError(`The form field "${name}" must be given once.`);
  return value;
}

/** The query's `value`: undefined when the form was not sent; a string problem for the field otherwise. */
function askedValue(req: Request): { asked: string; error?: string } | undefined {
  const value = (req.query as Record<string, unknown>)[VALUE_FIELD];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return { asked: '', error: 'Give one value.' };
  if (value.trim() === '') return { asked: value, error: 'Enter a value to explain.' };
  if (value.length > MAX_VALUE) return { asked: '', error: `A value is at most ${MAX_VALUE} characters.` };
  return { asked: value };
}

export function createDataPages(deps: ConsoleDeps): Router {
  const { store, config } = deps;
  const readValue = createValueReader(deps);
  const allowlist: OperatorAllowlist = createOperatorAllowlist({ store, clock: deps.clock, configured: config.allowlist });

  const showValue: RequestHandler = async (req, res) => {
    const ctx = pageContext(res);
    const asked = askedValue(req);
    const seenId = seenParam(req);
    if (asked === undefined) return sendPage(res, <ValuePage ctx={ctx} />);
    if (asked.error !== undefined) return sendPage(res, <ValuePage ctx={ctx} asked={asked.asked} error={asked.error} />, 400);
    sendPage(res, <ValuePage ctx={ctx} asked={asked.asked} {...await readValue(asked.asked)} seenId={seenId} />);
  };

  /** The allowlist page, with a message or the Add form as it was sent. */
  const allowlistPage = async (res: Response, extra: { message?: { kind: 'ok' | 'error'; text: string }; form?: AddForm } = {}, status = 200) => {
    sendPage(res, <AllowlistPage ctx={pageContext(res)} entries={await allowlist.list()} message={extra.message} form={extra.form} />, status);
  };

  const showAllowlist: RequestHandler = async (req, res) => {
    const entries = await allowlist.list();
    const runtime = new Set(entries.filter((e) => e.origin === 'runtime').map((e) => e.entry));
    const query = req.query as Record<string, unknown>;
    const added = query[OUTCOME.added];
    const removed = query[OUTCOME.removed];
    const retired = typeof query[OUTCOME.retired] === 'string' && /^[0-9]{1,9}$/.test(query[OUTCOME.retired] as string) ? Number(query[OUTCOME.retired]) : undefined;
    // Said only while the list agrees, so that a link cannot make the page claim a change that did not happen.
    let message: { kind: 'ok'; text: string } | undefined;
    if (typeof added === 'string' && runtime.has(added) && retired !== undefined) {
      message = { kind: 'ok', text: `Added ${added}: it retired ${retired} stored indicator${retired === 1 ? '' : 's'}, and later pulls keep what it covers out.` };
    } else if (typeof removed === 'string' && removed !== '' && !runtime.has(removed)) {
      message = { kind: 'ok', text: `Removed ${removed}: the next pulls may store again what it kept out.` };
    }
    sendPage(res, <AllowlistPage ctx={pageContext(res)} entries={entries} message={message} />);
  };

  /** The Add form's fields, checked: a bad one re-shows the form with the problem next to it (400), an entry already there says so (409). */
  const addForm = async (req: Request, res: Response, then: (entry: string, reason: string) => Promise<void>) => {
    const form: AddForm = { entry: formField(req, ALLOWLIST_FIELDS.entry), reason: formField(req, ALLOWLIST_FIELDS.reason) };
    let entry: string;
    let reason: string;
    try {
      entry = checkedEntry(form.entry);
    } catch (error) {
      if (error instanceof BadRequestError) return allowlistPage(res, { form: { ...form, error: { field: 'entry', message: error.message } } }, 400);
      throw error;
    }
    try {
      reason = checkedReason(form.reason);
    } catch (error) {
      if (error instanceof BadRequestError) return allowlistPage(res, { form: { ...form, error: { field: 'reason', message: error.message } } }, 400);
      throw error;
    }
    try {
      await then(entry, reason);
    } catch (error) {
      if (error instanceof AppError && error.status === 409) return allowlistPage(res, { form: { ...form, error: { field: 'entry', message: `${error.message} Nothing was changed.` } } }, 409);
      throw error;
    }
  };

  const preview: RequestHandler = (req, res) =>
    addForm(req, res, async (entry, reason) => {
      sendPage(res, <PreviewPage ctx={pageContext(res)} entry={entry} reason={reason} preview={await allowlist.preview(entry)} />);
    });

  const apply: RequestHandler = (req, res) =>
    addForm(req, res, async (entry, reason) => {
      const added = await allowlist.add({ entry, reason, addedBy: pageContext(res).keyId });
      deps.logger.info('console allowlist add', { client: pageContext(res).keyId, entry: added.entry, retired: added.retired });
      res.redirect(303, `${CONSOLE_PATHS.allowlist}?${new URLSearchParams({ [OUTCOME.added]: added.entry, [OUTCOME.retired]: String(added.retired) })}`);
    });

  const remove: RequestHandler = async (req, res) => {
    const entry = formField(req, ALLOWLIST_FIELDS.entry);
    if (entry.trim() === '') return allowlistPage(res, { message: { kind: 'error', text: 'The form named no entry to remove. Nothing was changed.' } }, 400);
    try {
      await allowlist.remove(entry);
    } catch (error) {
      if (error instanceof AppError && (error.status === 404 || error.status === 409)) {
        return allowlistPage(res, { message: { kind: 'error', text: `${error.message} Nothing was changed.` } }, error.status);
      }
      throw error;
    }
    deps.logger.info('console allowlist remove', { client: pageContext(res).keyId, entry: entry.trim() });
    res.redirect(303, `${CONSOLE_PATHS.allowlist}?${new URLSearchParams({ [OUTCOME.removed]: entry.trim() })}`);
  };

  const onlyGet = methodNotAllowed(['GET', 'HEAD']);
  const onlyPost = methodNotAllowed(['POST']);
  const router = Router();
  router.route('/value').get(showValue).all(onlyGet); // ?value=, its provenance and observations; &seen=ID after a sighting
  router.route('/value/seen').post(createValueSeen(deps, readValue)).all(onlyPost); // value, count, note, at: a sighting, 303 to the value
  router.route('/allowlist').get(showAllowlist).all(onlyGet); // both lists; ?added=&retired= or ?removed= after a change
  router.route('/allowlist/preview').post(preview).all(onlyPost); // entry, reason: the dry run and the Apply form
  router.route('/allowlist/apply').post(apply).all(onlyPost); // entry, reason: added, 303 to the list
  router.route('/allowlist/remove').post(remove).all(onlyPost); // entry: removed, 303 to the list
  return router;
}
