// The console's Exports route (docs/interface.md section 14, GET /console/exports): the form's query checked, and the list it describes previewed by the export itself.
import { Router, type Request, type RequestHandler } from 'express';
import type { CollectionConfig } from '../config.js';
import { collectionByName } from '../export/collection-by-name.js';
import { deviceLimitById, type DeviceLimit } from '../export/device-limits.js';
import { ExportOptionError, parseFormat, parseMax, parseStyle, parseTypes, type ExportOptions } from '../export/export-format.js';
import { exportPreview } from '../export/export-preview.js';
import { methodNotAllowed } from '../http/method-guard.js';
import { pageContext, type ConsoleDeps } from './console-deps.js';
import { sendPage } from './render.js';
import { EXPORT_FIELDS, ExportsPage, type ExportField, type ExportsForm } from './exports-view.js';

/** The lines the page shows of a list. */
export const PREVIEW_LINES = 20;

const EMPTY_FORM: Omit<ExportsForm, 'collection'> = { types: [], style: '', format: 'txt', device: '', max: '' };

type FieldErrors = Partial<Record<ExportField, string>>;

/**
 * The collection the form opens on: the one serving every indicator, which is the list a firewall
 * is most often given, rather than whichever the config names first (its default names the free
 * 100-value test collection first, for TAXII discovery). The rule: the first collection with no
 * filter at all; failing that, the first that is neither free nor a sample (a view of the real
 * data: one feed, threat, risk or type); failing that, the first (docs/interface.md, section 14).
 */
export function defaultExportCollection(collections: readonly CollectionConfig[]): CollectionConfig | undefined {
  const unfiltered = collections.find((c) => Object.values(c.filter).every((value) => value === undefined));
  return unfiltered ?? collections.find((c) => !c.free && c.filter.sample === undefined) ?? collections[0];
}

/** The form as the query sends it; undefined when it was not sent (no collection). A field meant once and given twice is its error. */
function readForm(req: Request, errors: FieldErrors): ExportsForm | undefined {
  const query = req.query as Record<string, unknown>;
  if (query[EXPORT_FIELDS.collection] === undefined) return undefined;
  const one = (field: Exclude<ExportField, 'type'>): string => {
    const value = query[EXPORT_FIELDS[field]];
    if (value === undefined) return '';
    if (typeof value === 'string') return value;
    errors[field] = 'Give it once.';
    return '';
  };
  const types = query[EXPORT_FIELDS.type];
  const typeList = types === undefined ? [] : ([] as unknown[]).concat(types).filter((t): t is string => typeof t === 'string');
  return { collection: one('collection'), types: typeList, style: one('style'), format: one('format'), device: one('device'), max: one('max').trim() };
}

interface CheckedForm {
  collection: CollectionConfig;
  options: ExportOptions;
  limit: number | undefined;
  device: DeviceLimit | undefined;
}

/**
 * The export's own parsers judge each field, so the page takes what GET /export/ takes and refuses
 * what it refuses, in its words. A number of the operator's own replaces the device's limit.
 */
function checkForm(form: ExportsForm, collections: readonly CollectionConfig[], errors: FieldErrors): CheckedForm | undefined {
  const parse = <T,>(field: ExportField, read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ExportOptionError)) throw error;
      errors[field] ??= `${error.message}.`;
      return undefined;
    }
  };
  const collection = collectionByName(collections, form.collection);
  if (collection === undefined) errors.collection ??= 'Choose one of the configured collections.';
  const types = form.types.length === 0 ? undefined : parse('type', () => parseTypes(form.types.join(',')));
  const style = form.style === '' ? undefined : parse('style', () => parseStyle(form.style));
  const format = parse('format', () => parseFormat(form.format === '' ? 'txt' : form.format));
  const preset = form.device === '' ? undefined : deviceLimitById(form.device);
  if (form.device !== '' && preset === undefined) errors.device ??= 'Choose a device from the list, or none.';
  const own = form.max === '' ? undefined : parse('max', () => parseMax(form.max));
  if (Object.keys(errors).length > 0 || collection === undefined || format === undefined) return undefined;
  const limit = own ?? preset?.maxLines;
  return { collection, options: { format, types, style, max: limit }, limit, device: own === undefined ? preset : undefined };
}

export function createExportsPage(deps: ConsoleDeps): Router {
  const { store, config } = deps;
  const collections = config.collections;
  const initialCollection = defaultExportCollection(collections)?.id ?? '';

  /** The form, and once sent the list it describes; a field in error shows the form again with it marked (400). */
  const showExports: RequestHandler = async (req, res) => {
    const ctx = pageContext(res);
    const errors: FieldErrors = {};
    const form = readForm(req, errors);
    if (form === undefined) return sendPage(res, <ExportsPage ctx={ctx} collections={collections} form={{ collection: initialCollection, ...EMPTY_FORM }} />);
    const checked = checkForm(form, collections, errors);
    if (checked === undefined) return sendPage(res, <ExportsPage ctx={ctx} collections={collections} form={form} errors={errors} />, 400);
    const preview = await exportPreview(store, checked.collection, checked.options, PREVIEW_LINES);
    // The origin the operator reached the console by (behind a proxy, as `trustProxy` lets Express read it).
    const url = `${req.protocol}://${req.get('host') ?? 'localhost'}${preview.url}`;
    const result = { preview, limit: checked.limit, device: checked.device, url };
    sendPage(res, <ExportsPage ctx={ctx} collections={collections} form={form} result={result} />);
  };

  const router = Router();
  router.route('/exports').get(showExports).all(methodNotAllowed(['GET', 'HEAD']));
  return router;
}
