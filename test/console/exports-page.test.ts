// The console's Exports page (docs/interface.md section 14) on each store, signed in through the login form: the form, the count against a device's
// limit, the lines max keeps, the URL (whose list the page's first lines begin), fields refused beside themselves, text escaped.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { INDICATOR_TYPES } from '../../src/indicator-types.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';
import { fixedClock } from '../helpers/test-app.js';
import { basicAuth } from '../taxii/taxii-request.js';
import { ALL, createMaxContext, FEED_ONE, TEXT_CHOICE_ORDER, valueOf, type MaxContext } from '../export/max-context.js';
import { consoleClient, HOST, signIn, type ConsoleClient } from './console-world.js';

/** Stored in place of iid 8 (risk none): the page must show it as text. */
const MARKUP = '<script>alert(1)</script>.example';

/** The element with this id, start tag to end tag, as sent. */
function elementById(html: string, id: string): string {
  const start = html.lastIndexOf('<', html.indexOf(` id="${id}"`));
  assert.ok(html.includes(` id="${id}"`), `no element #${id} in the page`);
  const name = /^<([a-z0-9]+)/.exec(html.slice(start))![1]!;
  if (name === 'input') return html.slice(start, html.indexOf('>', start) + 1);
  const end = html.indexOf(`</${name}>`, start);
  return html.slice(start, end + name.length + 3);
}
const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
/** The element's text as a reader sees it: tags dropped, entities read. */
const textById = (html: string, id: string) => unescape(elementById(html, id).replace(/<[^>]+>/g, ''));

for (const backend of storeBackends()) {
  describe(`console Exports page (${backend.name})`, () => {
    let ctx: MaxContext;
    let client: ConsoleClient;
    before(async () => {
      ctx = await createMaxContext(backend);
      await dbOf(ctx.store).updateTable('indicators').set({ value: MARKUP }).where('iid', '=', 8).execute();
      client = await signIn(ctx.app, (await createAdminKey(ctx.store, fixedClock, 'exports page')).key);
    });
    after(async () => {
      await ctx?.store.close();
      await backend.cleanup();
    });
    const page = (query: string, status = 200) => client.get(`/console/exports${query}`).expect(status);
    const valueAt = (iid: number) => (iid === 8 ? MARKUP : valueOf(iid));

    describe('GET /console/exports › without a session', () => {
      it('sends the browser to the login page', async () => {
        const res = await consoleClient(ctx.app).get('/console/exports').expect(303);
        assert.match(res.headers.location ?? '', /^\/console\/login/);
      });
    });

    describe('GET /console/exports › the form', () => {
      it('offers every collection, every type, both formats and the device presets, each field labelled, and no result yet', async () => {
        const html = (await page('')).text;
        for (const id of [ALL, FEED_ONE]) assert.match(elementById(html, 'export-collection'), new RegExp(`<option value="${id}"`));
        for (const type of INDICATOR_TYPES) assert.match(html, new RegExp(`<input type="checkbox" id="export-type-${type}" name="type" value="${type}"`));
        for (const id of ['export-collection', 'export-style', 'export-format-txt', 'export-format-csv', 'export-device', 'export-max']) assert.match(html, new RegExp(`<label for="${id}"`));
        assert.match(elementById(html, 'export-device'), /PAN-OS 7\.1, most models \(50,000\)/);
        assert.match(elementById(html, 'export-form'), /method="get" action="\/console\/exports"/);
        assert.ok(!html.includes('id="export-result"'));
      });
    });

    describe('GET /console/exports › a list longer than the limit', () => {
      it('counts the lines, says it does not fit, shows the lines max keeps first, and gives the URL whose list begins with them', async () => {
        const html = (await page(`?collection=${ALL}&type=ip&type=domain&style=&format=txt&device=&max=4`)).text;
        assert.equal(textById(html, 'export-total'), String(TEXT_CHOICE_ORDER.length));
        assert.equal(textById(html, 'export-kept'), '4');
        assert.equal(textById(html, 'export-omitted'), String(TEXT_CHOICE_ORDER.length - 4));
        assert.match(textById(html, 'export-fits'), /does not fit/);
        const first = textById(html, 'export-first-lines').split('\n');
        assert.deepEqual(first, TEXT_CHOICE_ORDER.slice(0, 4).map(valueAt));
        const url = unescape(/value="([^"]*)"/.exec(elementById(html, 'export-url'))![1]!);
        assert.equal(url, `http://${HOST}/export/${ALL}.txt?type=ip,domain&max=4`);
        assert.ok(!url.includes('key='), 'the URL holds a key');
        const list = await request(ctx.app).get(url.slice(`http://${HOST}`.length)).set('Authorization', basicAuth(ctx.proKey)).expect(200);
        assert.equal(list.text, first.map((line) => `${line}\n`).join(''));
      });
    });

    describe('GET /console/exports › a device preset the list fits', () => {
      it('says it fits the device, names its limit, and keeps the limit in the URL', async () => {
        const html = (await page(`?collection=${FEED_ONE}&format=txt&device=panos-50k&max=`)).text;
        assert.equal(textById(html, 'export-total'), '5');
        assert.equal(textById(html, 'export-omitted'), '0');
        assert.match(textById(html, 'export-fits'), /It fits/);
        assert.match(textById(html, 'export-limit'), /50,000 lines \(PAN-OS 7\.1, most models/);
        assert.match(elementById(html, 'export-url'), new RegExp(`/export/${FEED_ONE}\\.txt\\?max=50000"`));
        assert.match(elementById(html, 'export-device'), /<option value="panos-50k" selected/);
      });
    });

    describe('GET /console/exports › no limit', () => {
      it('says the firewall gets every line, shows them as text, and gives a URL without max', async () => {
        const html = (await page(`?collection=${ALL}&format=txt&device=&max=`)).text;
        assert.match(textById(html, 'export-fits'), new RegExp(`gets all ${TEXT_CHOICE_ORDER.length} lines`));
        assert.ok(html.includes('&lt;script>alert(1)&lt;/script>.example'));
        assert.ok(!html.includes(MARKUP), 'a stored value was sent as markup');
        assert.match(elementById(html, 'export-url'), new RegExp(`value="http://${HOST}/export/${ALL}\\.txt"`));
      });
    });

    describe('GET /console/exports › fields the export refuses', () => {
      it('shows the form again (400) with each error beside its field, the field marked invalid and what was sent kept', async () => {
        const res = await page(`?collection=nope&type=ip&type=colour&style=fortigate&format=txt&device=palm&max=0`, 400);
        const html = res.text;
        assert.match(textById(html, 'export-collection-error'), /Choose one of the configured collections/);
        assert.match(textById(html, 'export-type-error'), /"colour" is not an indicator type/);
        assert.match(textById(html, 'export-style-error'), /"fortigate" is not a style/);
        assert.match(textById(html, 'export-device-error'), /Choose a device from the list/);
        assert.match(textById(html, 'export-max-error'), /"0" is not a whole number of lines from 1 to 1000000/);
        assert.match(elementById(html, 'export-max'), /aria-invalid="true"/);
        assert.match(elementById(html, 'export-max'), /aria-describedby="export-max-error export-max-help"/);
        assert.match(elementById(html, 'export-max'), /value="0"/);
        assert.match(html, /<input type="checkbox" id="export-type-ip" name="type" value="ip" checked/);
        assert.ok(!html.includes('id="export-result"'));
      });

      it('a field meant once given twice is refused beside it', async () => {
        const html = (await page(`?collection=${ALL}&format=txt&format=csv`, 400)).text;
        assert.match(textById(html, 'export-format-error'), /Give it once/);
      });
    });
  });
}
