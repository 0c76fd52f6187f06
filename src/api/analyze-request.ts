// What an analyze.php request asks (docs/observations.md, "Submissions for analysis"): the value a POST
// submits (`ioc`, base64 as the pulsedive client encodes it) or the result a GET asks for (`qid`);
// every 400 is raised here.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';
import { prettyParam } from '../http/query-params.js';
import { analysisParam, analysisPretty } from './analyze-form.js';
import { idParam } from './lookup-params.js';

/**
 * Base64 in the standard alphabet (RFC 4648 section 4) or the URL-safe one (section 5), padded or
 * not; a blank stands for `+`, which a form sent unencoded turns into a blank.
 */
const BASE64 = /^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text `ioc` encodes; a 400 naming `ioc` when it is missing, not base64, not UTF-8 or empty. */
export function decodedIoc(encoded: string | undefined): string {
  if (encoded === undefined || encoded.trim() === '') throw new BadRequestError('Parameter "ioc" is required: the value to analyze, base64-encoded.');
  const text = encoded.trim().replaceAll(' ', '+');
  const unpadded = text.replace(/=+$/, '');
  const padded = text.length !== unpadded.length;
  if (!BASE64.test(text) || unpadded.length % 4 === 1 || (padded && text.length % 4 !== 0)) {
    throw new BadRequestError('Parameter "ioc" must be base64 (RFC 4648): the value to analyze, encoded.');
  }
  let value: string;
  try {
    value = utf8.decode(Buffer.from(text, 'base64'));
  } catch {
    throw new BadRequestError('Parameter "ioc" must encode text in UTF-8.');
  }
  if (value.trim() === '') throw new BadRequestError('Parameter "ioc" encodes an empty value.');
  return value;
}

export interface AnalysisSubmission {
  value: string;
  pretty: boolean;
}

/** POST: `ioc` decoded, and `pretty`. `enrich`, `probe` and `sanitize` are read by no one: nothing is probed or enriched. */
export function analysisSubmission(req: Request): AnalysisSubmission {
  return { value: decodedIoc(analysisParam(req, 'ioc')), pretty: analysisPretty(req) };
}

/** GET: the result of submission `qid`. */
export function analysisResultRequest(req: Request): { qid: number; pretty: boolean } {
  return { qid: idParam(req, 'qid'), pretty: prettyParam(req) };
}
