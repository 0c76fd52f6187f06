// resolveRuntimeSettings: LOG_LEVEL takes each level the logger has, is `info` when unset, and refuses any other value naming the list.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveRuntimeSettings } from '../src/config.js';
import { ConfigError } from '../src/errors.js';
import { isLogLevel, LOG_LEVELS } from '../src/logger.js';

const settingsWith = (env: Record<string, string | undefined>) => resolveRuntimeSettings({}, env, './data/x.sqlite');

describe('LOG_LEVEL', () => {
  it('takes each of debug, info, warn, error and silent', () => {
    assert.deepEqual(LOG_LEVELS, ['debug', 'info', 'warn', 'error', 'silent']);
    for (const level of LOG_LEVELS) assert.equal(settingsWith({ LOG_LEVEL: level }).logLevel, level);
  });

  it('is info when unset or empty', () => {
    assert.equal(settingsWith({}).logLevel, 'info');
    assert.equal(settingsWith({ LOG_LEVEL: '' }).logLevel, 'info');
  });

  it('refuses any other value, naming the variable and every level', () => {
    for (const value of ['verbose', 'INFO', 'toString', '__proto__', 'constructor']) {
      assert.throws(() => settingsWith({ LOG_LEVEL: value }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.message, `LOG_LEVEL: "${value}" must be one of debug, info, warn, error, silent`);
        return true;
      }, value);
      assert.equal(isLogLevel(value), false, value);
    }
  });
});
