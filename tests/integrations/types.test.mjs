// The integrations' declarations (pkg/ai-sdk.d.ts, langchain.d.ts, openai-agents.d.ts and
// integration-core.d.ts) under TypeScript strict, with the frameworks' own types:
// tests/integrations/types/usage.mts passes each integration where the framework expects its
// own type (PrepareStepFunction, LanguageModelMiddleware, AgentMiddleware, Session,
// CallModelInputFilter), with `nodenext` and `bundler` resolution; its @ts-expect-error lines
// must fail. And no declaration says `any`.
//
//   node --test tests/integrations/types.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tsc = (config) => new Promise((resolve) => {
  execFile(process.execPath, ['node_modules/typescript/bin/tsc', '-p', config], { cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) => {
    resolve({ code: err ? err.code ?? -1 : 0, out: `${stdout}${stderr}` });
  });
});

for (const config of ['tsconfig.json', 'tsconfig.bundler.json']) {
  test(`tsc --strict: the integrations' types fit the frameworks' (${config})`, { timeout: 120_000 }, async () => {
    const r = await tsc(`tests/integrations/types/${config}`);
    assert.equal(r.code, 0, r.out);
  });
}

test('the declarations have no `any`', () => {
  for (const file of ['ai-sdk.d.ts', 'langchain.d.ts', 'openai-agents.d.ts', 'integration-core.d.ts']) {
    const code = readFileSync(new URL(`pkg/${file}`, `file://${ROOT}`), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    assert.doesNotMatch(code, /\bany\b/, file);
  }
});
