// The built `threatgate feeds pull` of a 90 KB list served as `python3 -m http.server` serves it (HTTP/1.0, the body ends at the close; framing-server.ts): the process pulls every value and exits 0, then fails a list cut by a reset with its reason and exits 1. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { systemClock } from '../../src/clock.js';
import { startCli } from '../helpers/cli-process.js';
import { addressLines } from '../helpers/feed-server.js';
import { startFramingServer, type Framing, type FramingServer } from '../helpers/framing-server.js';
import { storeBackends } from '../helpers/store-backends.js';

/** 7,000 address lines: about 90 KB. */
const VALUES = 7000;
const LIST = addressLines(0, VALUES);

for (const backend of storeBackends()) {
  describe(`feeds pull of a close-delimited list, the built CLI (${backend.name})`, () => {
    let server: FramingServer;
    before(async () => {
      assert.ok(LIST.length > 85 * 1024 && LIST.length < 95 * 1024, `${LIST.length} bytes`);
      // `/http10-close/list.txt` or `/reset-mid-body/list.txt`: the framing is the path's first part.
      server = await startFramingServer({ framing: (request) => request.path.split('/')[1] as Framing, answer: () => ({ body: LIST }), writes: 12 });
    });
    after(async () => {
      await server?.close();
      await backend.cleanup();
    });

    it('pulls every value and exits 0; a list cut by a reset fails with its reason and exit 1', async () => {
      const { store, location } = await backend.create();
      try {
        const add = (feed: string, framing: Framing) =>
          addFeedSource(store, { feed, organization: 'Test', source: { url: `${server.base}/${framing}/list.txt`, format: 'text' } }, systemClock, {});
        const whole = await add('Served by http.server', 'http10-close');
        const pull = startCli(['feeds', 'pull', String(whole), '--db', location]);
        assert.equal(await pull.exited, 0, pull.stderr());
        assert.match(pull.stdout(), new RegExp(`: ok ${VALUES} values, ${VALUES} new indicators`));
        const cut = await add('Cut by a reset', 'reset-mid-body');
        const failed = startCli(['feeds', 'pull', String(cut), '--db', location]);
        assert.equal(await failed.exited, 1, failed.stderr());
        assert.match(failed.stdout(), /connection closed before the body ended \(ECONNRESET\)/);
        const sources = await store.listFeedSources();
        assert.deepEqual(
          sources.map((s) => [s.fid, s.last_error?.replace(/^.*: /, '') ?? null]),
          [[whole, null], [cut, 'connection closed before the body ended (ECONNRESET)']],
        );
      } finally {
        await store.close();
      }
    });
  });
}
