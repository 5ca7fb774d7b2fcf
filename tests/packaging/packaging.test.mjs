// The package as it would be published: `npm pack` of pkg/, its contents checked, then the
// tarball installed into fresh projects outside the repository, as users install it: an ESM
// project, a CommonJS one, TypeScript (strict; `nodenext` and `bundler` resolution) and a
// Vite app, built, served by `vite preview` and run in headless Chromium.
//
//   node --test tests/packaging/          (needs pkg/ built: scripts/build.sh)
//   SKIP_BROWSER_TESTS=1 node --test tests/packaging/     without Chromium
//
// The installs use npm's cache (--prefer-offline). TypeScript and Vite are installed at the
// versions of the root devDependencies. Every temporary folder is removed at the end.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PKG = join(ROOT, 'pkg');
const REDACTED = '[Content redacted for context management]';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
const SKIP_BROWSER = process.env.SKIP_BROWSER_TESTS === '1';
// The package of this repository (pkg/, linked), for the figures to compare with; imported
// by the tests that use it, so that a broken package fails them, not the whole file.
const repoPackage = () => import('context-compactor');

// What the tarball must hold, and all it may hold.
const REQUIRED = ['README.md', 'LICENSE', 'package.json', 'context_compactor_bg.wasm', 'node.mjs', 'web.mjs',
  'index.d.ts', 'context_compactor.js', 'context_compactor.d.ts', 'context_compactor_bg.wasm.d.ts',
  // The framework integrations (subpath exports) and what they share.
  'integration-core.mjs', 'integration-core.d.ts', 'ai-sdk.mjs', 'ai-sdk.d.ts',
  'langchain.mjs', 'langchain.d.ts', 'openai-agents.mjs', 'openai-agents.d.ts'];
const ALLOWED = (path) => REQUIRED.includes(path) || /^snippets\/[\w.-]+\/(?:[\w-]+\/)*[\w.-]+\.js$/.test(path);
// (snippets/ mirrors the Rust source folders, src/wasm/… included: only a top-level src/ is wrong.)
const FORBIDDEN = /(?:^|\/)(?:tests?|__tests__|node_modules)\/|^(?:src|examples|www|bench|scripts|target)\/|\.rs$|\.test\.|\.map$|\.tgz$|(?:^|\/)\./;

/**
 * The conversation every project compacts: a task, four tool steps with ~1,000-token
 * results, a final answer (no turn ids: the step rule numbers them). Its source is pasted
 * into each project, so that all of them and this file compact the same messages.
 */
function conversation() {
  const output = (k) => Array.from({ length: 60 }, (_, i) => `src/module_${k}/file_${i}.rs: 1 error, ${i} warnings`).join('\n');
  const out = [{ role: 'user', content: [{ type: 'text', text: 'Fix the failing build' }] }];
  for (let k = 1; k <= 4; k++) {
    out.push({ role: 'assistant', content: [{ type: 'tool_use', id: `call_${k}`, name: 'bash', input: { cmd: `cargo check -p m${k}` } }] });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `call_${k}`, content: output(k) }] });
  }
  out.push({ role: 'assistant', content: [{ type: 'text', text: 'Done: the build passes' }] });
  return out;
}
// keepRecentTurns 2 keeps the last tool step and the answer: three tool results are redacted.
const THRESHOLD_OPTIONS = { toolCompaction: 'redact', keepRecentTurns: 2 };
const THRESHOLD = { type: 'threshold', ...THRESHOLD_OPTIONS };
const CONTEXT_LIMIT = 4000;

let work; // the temporary folder holding the tarball and every project
let tarball; // its path
let packed; // npm pack's report on it

/** Runs a command (no shell); resolves to { code, signal, stdout, stderr }. */
function run(command, args, { cwd, timeout = 120_000, env = npmEnv() } = {}) {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, signal: err?.signal ?? null, stdout, stderr });
    });
  });
}

const show = (r) => `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/**
 * The environment for npm in the projects: without the npm_* variables an enclosing
 * `npm test` sets (they would point npm at this repository), the cache and registry kept.
 */
function npmEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.toLowerCase().startsWith('npm_') || /^npm_config_(cache|registry|userconfig)$/i.test(k)) env[k] = v;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

/** The version of a root devDependency: as installed in the root node_modules, else as package.json pins it. */
function rootVersion(name) {
  const installed = join(ROOT, 'node_modules', name, 'package.json');
  if (existsSync(installed)) return JSON.parse(readFileSync(installed, 'utf8')).version;
  const wanted = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies?.[name];
  assert.ok(wanted, `${name} is not a devDependency of the root package.json`);
  return wanted;
}

/** A fresh project in `work`: its files written, then `npm install <tarball>` (with `devDependencies`). */
async function project(name, { type = 'module', devDependencies = {}, files = {} } = {}) {
  const dir = join(work, name);
  mkdirSync(dir);
  const manifest = { name: `packaging-${name}`, version: '0.0.0', private: true, ...(type && { type }), devDependencies };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  const r = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: dir });
  assert.equal(r.code, 0, `npm install in the ${name} project failed\n${show(r)}`);
  const installed = JSON.parse(readFileSync(join(dir, 'node_modules/context-compactor/package.json'), 'utf8'));
  assert.equal(installed.version, packed.version);
  return dir;
}

/** A port free on 127.0.0.1 right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'context-compactor-packaging-'));
  const r = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: PKG });
  assert.equal(r.code, 0, `npm pack failed\n${show(r)}`);
  [packed] = JSON.parse(r.stdout);
  tarball = join(work, packed.filename);
  assert.ok(existsSync(tarball), `no ${tarball}`);
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the package and nothing else', async () => {
  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(`${packed.filename}: ${packed.size} B packed (${kb(packed.size)}), ${packed.unpackedSize} B unpacked (${kb(packed.unpackedSize)}), ${packed.entryCount} files`);
  for (const f of packed.files) console.log(`  ${String(f.size).padStart(8)}  ${f.path}`);

  // What is in the .tgz itself, not only what npm reports.
  const listing = await run('tar', ['-tzf', tarball]);
  assert.equal(listing.code, 0, show(listing));
  const entries = listing.stdout.split('\n').filter(Boolean).filter((p) => !p.endsWith('/'));
  assert.ok(entries.every((p) => p.startsWith('package/')), entries.join('\n'));
  const files = entries.map((p) => p.slice('package/'.length)).sort();
  assert.deepEqual(files, packed.files.map((f) => f.path).sort());

  for (const path of REQUIRED) assert.ok(files.includes(path), `${path} is not in the tarball`);
  const unexpected = files.filter((p) => !ALLOWED(p) || FORBIDDEN.test(p));
  assert.deepEqual(unexpected, [], `unexpected files in the tarball: ${unexpected.join(', ')}`);

  // Every module the glue imports is shipped.
  const glue = readFileSync(join(PKG, 'context_compactor.js'), 'utf8');
  const imports = [...glue.matchAll(/from '\.\/([^']+)'/g)].map((m) => m[1]);
  assert.ok(imports.length > 0);
  for (const path of imports) assert.ok(files.includes(path), `context_compactor.js imports ${path}, not in the tarball`);

  // The shipped package.json: the publishing metadata, and the LICENSE as at the root.
  const meta = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  assert.equal(meta.name, 'context-compactor');
  assert.equal(meta.license, 'MIT');
  assert.deepEqual(meta.repository, { type: 'git', url: 'git+https://github.com/context-compactor/context-compactor.git' });
  assert.match(meta.homepage, /^https:\/\//);
  assert.match(meta.bugs.url, /^https:\/\//);
  assert.ok(Array.isArray(meta.keywords) && meta.keywords.length > 0);
  assert.ok(meta.engines?.node, 'engines.node');
  assert.equal(readFileSync(join(PKG, 'LICENSE'), 'utf8'), readFileSync(join(ROOT, 'LICENSE'), 'utf8'), 'pkg/LICENSE differs from LICENSE');
  assert.match(readFileSync(join(PKG, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) 2026 the context-compactor authors\n/);
  assert.match(readFileSync(join(PKG, 'README.md'), 'utf8'), /^# context-compactor\n[\s\S]*npm install context-compactor/);
});

test('ESM: import from the installed tarball and compact', async () => {
  const dir = await project('esm', {
    files: {
      'main.mjs': `import { ContextManager, ThresholdCompactor, estimateTokens, validateToolPairs } from 'context-compactor';
${conversation}
const ctx = new ContextManager({ contextLimit: ${CONTEXT_LIMIT}, compactor: ${JSON.stringify(THRESHOLD)} });
ctx.pushMany(conversation());
const before = ctx.messages();
const shouldCompact = ctx.shouldCompact();
const outcome = await ctx.maybeCompact();
const after = ctx.messages();
const direct = new ThresholdCompactor(${JSON.stringify(THRESHOLD_OPTIONS)}).compact(before);
const broken = before.filter((m) => !m.content.some((b) => b.type === 'tool_result' && b.tool_use_id === 'call_2'));
console.log(JSON.stringify({
  resolved: import.meta.resolve('context-compactor'),
  shouldCompact, outcome, before, after,
  estimateBefore: estimateTokens(before), estimateAfter: estimateTokens(after),
  direct: { result: direct.result, same: JSON.stringify(direct.messages) === JSON.stringify(after) },
  problems: validateToolPairs(after), brokenProblems: validateToolPairs(broken).length,
}));
`,
    },
  });
  const r = await run(process.execPath, ['main.mjs'], { cwd: dir });
  assert.equal(r.code, 0, show(r));
  const out = JSON.parse(r.stdout);
  assert.equal(fileURLToPath(out.resolved), join(dir, 'node_modules/context-compactor/node.mjs'));
  assert.equal(out.shouldCompact, true);
  assert.equal(out.outcome.strategy, 'threshold');
  assert.deepEqual(out.outcome.result, { toolResultsSummarized: 0, toolResultsRedacted: 3, turnsCompacted: 0 });
  assert.equal(out.outcome.tokensBefore, out.estimateBefore);
  assert.equal(out.outcome.tokensAfter, out.estimateAfter);
  assert.ok(out.estimateAfter < out.estimateBefore / 2, `${out.estimateBefore} → ${out.estimateAfter}`);
  assert.equal(out.outcome.fits, true);
  assert.equal(out.after.length, out.before.length);
  const results = (ms) => ms.flatMap((m) => m.content).filter((b) => b.type === 'tool_result').map((b) => b.content);
  assert.deepEqual(results(out.after).slice(0, 3), [REDACTED, REDACTED, REDACTED]);
  assert.equal(results(out.after)[3], results(out.before)[3]); // the newest step kept
  assert.deepEqual(out.after.at(-1), out.before.at(-1));
  assert.deepEqual(out.direct, { result: out.outcome.result, same: true });
  assert.deepEqual(out.problems, []);
  assert.equal(out.brokenProblems, 1);
  // The same figures as the package in this repository gives.
  const { ThresholdCompactor, estimateTokens } = await repoPackage();
  const here = new ThresholdCompactor(THRESHOLD_OPTIONS).compact(out.before);
  assert.equal(estimateTokens(here.messages), out.estimateAfter);
});

test('integrations: the subpath exports from the installed tarball, with their peers', async () => {
  const peers = ['ai', 'zod', 'langchain', '@langchain/core', '@openai/agents'];
  const dir = await project('integrations', {
    devDependencies: Object.fromEntries(peers.map((name) => [name, rootVersion(name)])),
    files: {
      'main.mjs': `import { ContextManager } from 'context-compactor';
import { compactingPrepareStep, compactingMiddleware } from 'context-compactor/ai-sdk';
import { compactingMiddleware as langchainMiddleware } from 'context-compactor/langchain';
import { CompactingSession } from 'context-compactor/openai-agents';
const big = (n) => 'output ' + n + ' ' + 'word '.repeat(800);
const messages = [{ role: 'user', content: 'Read the files.' }];
for (let n = 1; n <= 8; n++) {
  messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_' + n, toolName: 'read', input: { n } }] });
  messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_' + n, toolName: 'read', output: { type: 'text', value: big(n) } }] });
}
const prepareStep = compactingPrepareStep({ contextLimit: 4000 });
const step = await prepareStep({ steps: [], messages });
const session = new CompactingSession({ contextLimit: 4000 });
await session.addItems([{ type: 'message', role: 'user', content: 'hi' }]);
console.log(JSON.stringify({
  resolved: ['ai-sdk', 'langchain', 'openai-agents'].map((s) => import.meta.resolve('context-compactor/' + s)),
  sameClass: prepareStep.manager instanceof ContextManager && session.manager instanceof ContextManager,
  compacted: step.messages.filter((m) => m.role === 'tool' && m.content[0].output.value.startsWith('[Content redacted')).length,
  newest: step.messages.at(-1).content[0].output.value === big(8),
  middleware: typeof compactingMiddleware({ contextLimit: 4000 }).transformParams,
  langchain: typeof langchainMiddleware({ contextLimit: 4000 }).beforeModel,
  items: (await session.getItems()).length,
}));
`,
    },
  });
  const r = await run(process.execPath, ['main.mjs'], { cwd: dir });
  assert.equal(r.code, 0, show(r));
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.resolved.map((u) => relative(dir, fileURLToPath(u))),
    ['node_modules/context-compactor/ai-sdk.mjs', 'node_modules/context-compactor/langchain.mjs', 'node_modules/context-compactor/openai-agents.mjs']);
  assert.equal(out.sameClass, true, 'the integrations use the package entry the app imports (one module, one .wasm)');
  assert.ok(out.compacted > 0, 'old tool results redacted');
  assert.equal(out.newest, true);
  assert.equal(out.middleware, 'function');
  assert.equal(out.langchain, 'function');
  assert.equal(out.items, 1);
  console.log(`integrations: ${peers.map((name) => `${name}@${rootVersion(name)}`).join(', ')}; ${out.compacted} of 8 tool results redacted by prepareStep`);
});

test('CommonJS: require() of the installed tarball', async () => {
  const dir = await project('cjs', {
    type: null,
    files: {
      'main.cjs': `const cc = require('context-compactor');
${conversation}
const m = new cc.ContextManager({ contextLimit: ${CONTEXT_LIMIT}, compactor: ${JSON.stringify(THRESHOLD)} });
m.pushMany(conversation());
m.maybeCompact().then(async (outcome) => {
  const esm = await import('context-compactor');
  let invalid = null;
  try { m.push({ role: 'user', content: [{ type: 'tool_result', content: 'no id' }] }); } catch (e) { invalid = { isCompactionError: e instanceof cc.CompactionError, code: e.code, path: e.path }; }
  console.log(JSON.stringify({
    resolved: require.resolve('context-compactor'),
    requireModule: process.features.require_module ?? null,
    exports: Object.keys(cc).sort(),
    sameInstance: esm.ContextManager === cc.ContextManager,
    meta: require('context-compactor/package.json').name,
    result: outcome.result, tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter,
    problems: cc.validateToolPairs(m.messages()), invalid,
  }));
});
`,
    },
  });
  const r = await run(process.execPath, ['main.cjs'], { cwd: dir });
  // require(esm): Node ≥ 20.19 (the package's engines) loads node.mjs, which has no top-level await.
  assert.equal(r.code, 0, `require('context-compactor') failed on Node ${process.version}\n${show(r)}`);
  if (r.stderr) console.log(`require('context-compactor') on Node ${process.version} wrote to stderr:\n${r.stderr}`);
  const out = JSON.parse(r.stdout);
  console.log(`require('context-compactor') on Node ${process.version}: ${relative(dir, out.resolved)} (process.features.require_module: ${out.requireModule})`);
  assert.equal(out.resolved, join(dir, 'node_modules/context-compactor/node.mjs'));
  for (const name of ['ContextManager', 'ThresholdCompactor', 'LlmCompactor', 'CompactionError', 'estimateTokens',
    'validateToolPairs', 'DEFAULT_SUMMARY_PROMPT', 'fromAnthropic', 'toAnthropic']) {
    assert.ok(out.exports.includes(name), `${name} is not exported to require()`);
  }
  assert.equal(out.sameInstance, true);
  assert.equal(out.meta, 'context-compactor');
  assert.deepEqual(out.result, { toolResultsSummarized: 0, toolResultsRedacted: 3, turnsCompacted: 0 });
  assert.ok(out.tokensAfter < out.tokensBefore / 2, `${out.tokensBefore} → ${out.tokensAfter}`);
  assert.deepEqual(out.problems, []);
  assert.deepEqual(out.invalid, { isCompactionError: true, code: 'INVALID_INPUT', path: 'message.content[0].tool_use_id' });
});

// Uses the typed API; each @ts-expect-error must meet an error, so `any` types would fail too.
const TYPED_APP = `import {
  ContextManager, ThresholdCompactor, CompactionError, estimateTokens, validateToolPairs, fromAnthropic,
  type CompactionEvent, type CompactionOutcome, type ContextManagerOptions, type Message, type MessageInput,
  type PairingProblem,
} from 'context-compactor';

const events: CompactionEvent[] = [];
const options: ContextManagerOptions = {
  contextLimit: 4000,
  reserveTokens: 100,
  compactor: { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 2 },
  onEvent: (event) => { events.push(event); },
};
const input: MessageInput[] = [
  { role: 'user', content: [{ type: 'text', text: 'list the files' }] },
  { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a\\nb' }] },
];
const ctx = new ContextManager(options);
ctx.pushMany(input);
const messages: Message[] = ctx.messages();
const owner: string | undefined = messages[0]?.turn_id.owner;
export async function compactNow(): Promise<number> {
  const outcome: CompactionOutcome | null = await ctx.maybeCompact();
  return outcome ? outcome.tokensAfter : ctx.contextUsed;
}
const problems: PairingProblem[] = validateToolPairs(messages);
const tokens: number = estimateTokens(messages);
const { messages: compacted, result } = new ThresholdCompactor({ toolCompaction: 'summarize' }).compact(messages);
const redacted: number = result.toolResultsRedacted;
const body: Uint8Array = ctx.requestBody({ format: 'anthropic', model: 'claude', max_tokens: 1024 });
const fromWire: Message[] = fromAnthropic({ messages: [{ role: 'user', content: 'hi' }] }).messages;
try {
  ctx.push({ role: 'user', content: [] });
} catch (err) {
  if (err instanceof CompactionError && err.code === 'INVALID_INPUT') console.log(err.path);
}
// @ts-expect-error contextLimit is a number
new ContextManager({ contextLimit: '4000' });
// @ts-expect-error 'system' is not a message role
ctx.push({ role: 'system', content: [] });
// @ts-expect-error toolCompaction is 'summarize' or 'redact'
new ThresholdCompactor({ toolCompaction: 'drop' });
export { owner, problems, tokens, compacted, redacted, body, fromWire };
`;
// A CommonJS module of the same project (nodenext): import compiled to require().
const TYPED_CJS = `import { ContextManager, type Message } from 'context-compactor';
const ctx = new ContextManager({ contextLimit: 100 });
const messages: Message[] = ctx.messages();
// @ts-expect-error the options are required
new ContextManager();
export = messages;
`;

test('TypeScript strict: the types compile with module nodenext and with bundler resolution', async () => {
  const version = rootVersion('typescript');
  const base = { strict: true, target: 'es2022', noEmit: true, types: [] };
  const dir = await project('typescript', {
    devDependencies: { typescript: version },
    files: {
      'src/app.ts': TYPED_APP,
      'src/require.cts': TYPED_CJS,
      'tsconfig.json': JSON.stringify({ compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' }, include: ['src'] }, null, 2),
      'tsconfig.bundler.json': JSON.stringify({ compilerOptions: { ...base, module: 'esnext', moduleResolution: 'bundler' }, files: ['src/app.ts'] }, null, 2),
    },
  });
  console.log(`typescript ${JSON.parse(readFileSync(join(dir, 'node_modules/typescript/package.json'), 'utf8')).version}`);
  for (const [config, sources] of [['.', ['src/app.ts', 'src/require.cts']], ['tsconfig.bundler.json', ['src/app.ts']]]) {
    const r = await run('npx', ['--no', '--', 'tsc', '-p', config, '--listFiles'], { cwd: dir });
    assert.equal(r.code, 0, `tsc -p ${config} failed\n${show(r)}`);
    assert.doesNotMatch(r.stdout, /error TS\d+/);
    const listed = r.stdout.split('\n').filter(Boolean).map((p) => relative(dir, p));
    assert.ok(listed.includes('node_modules/context-compactor/index.d.ts'), `tsc -p ${config} did not read the package's index.d.ts:\n${listed.join('\n')}`);
    for (const s of sources) assert.ok(listed.includes(s), `tsc -p ${config} did not compile ${s}`);
    console.log(`tsc -p ${config}: 0 errors`);
  }
  // And the checks can fail: a type error in a new file is reported against the package's types.
  writeFileSync(join(dir, 'src/wrong.ts'), "import { ContextManager } from 'context-compactor';\nnew ContextManager({ contextLimit: 1, reserveTokens: 'many' });\n");
  const wrong = await run('npx', ['--no', '--', 'tsc', '-p', '.'], { cwd: dir });
  assert.notEqual(wrong.code, 0, show(wrong));
  assert.match(wrong.stdout, /src\/wrong\.ts\(2,\d+\): error TS2322/);
});

test('Vite: build, serve with vite preview, run in headless Chromium', async (t) => {
  const dir = await project('vite', {
    devDependencies: { vite: rootVersion('vite') },
    files: {
      'index.html': `<!doctype html>
<html><head><meta charset="utf-8"><title>context-compactor in Vite</title></head>
<body><pre id="result">pending</pre><script type="module" src="./main.js"></script></body></html>
`,
      'main.js': `import { ContextManager, estimateTokens, toVercelAI, validateToolPairs } from 'context-compactor';
import { compactingPrepareStep } from 'context-compactor/ai-sdk';
${conversation}
const out = document.getElementById('result');
try {
  const ctx = new ContextManager({ contextLimit: ${CONTEXT_LIMIT}, compactor: ${JSON.stringify(THRESHOLD)} });
  ctx.pushMany(conversation());
  const outcome = await ctx.maybeCompact();
  // The AI SDK integration (no peer needed to run it): the same conversation as ModelMessages.
  const prepareStep = compactingPrepareStep({ contextLimit: ${CONTEXT_LIMIT}, compactor: ${JSON.stringify(THRESHOLD)} });
  const step = await prepareStep({ steps: [], messages: toVercelAI(conversation()) });
  out.textContent = JSON.stringify({ ok: true, result: outcome.result, tokensBefore: outcome.tokensBefore,
    tokensAfter: estimateTokens(ctx.messages()), problems: validateToolPairs(ctx.messages()),
    integration: { sameClass: prepareStep.manager instanceof ContextManager, result: prepareStep.manager.messages().length,
      redacted: step.messages.filter((m) => m.role === 'tool' && m.content[0].output.value === ${JSON.stringify(REDACTED)}).length } });
} catch (err) {
  out.textContent = JSON.stringify({ ok: false, error: String(err?.stack ?? err) });
}
`,
    },
  });
  const vite = join(dir, 'node_modules/vite/bin/vite.js');
  const build = await run('npx', ['--no', '--', 'vite', 'build'], { cwd: dir });
  assert.equal(build.code, 0, `vite build failed\n${show(build)}`);
  const assets = readdirSync(join(dir, 'dist/assets'));
  const wasm = assets.filter((f) => f.endsWith('.wasm'));
  assert.equal(wasm.length, 1, `dist/assets: ${assets.join(', ')}`);
  const wasmBytes = readFileSync(join(dir, 'dist/assets', wasm[0]));
  assert.ok(wasmBytes.equals(readFileSync(join(dir, 'node_modules/context-compactor/context_compactor_bg.wasm'))), 'the emitted .wasm is not the package\'s');
  const chunks = assets.filter((f) => f.endsWith('.js'));
  assert.ok(chunks.some((f) => readFileSync(join(dir, 'dist/assets', f), 'utf8').includes(wasm[0])), `no chunk refers to ${wasm[0]}`);
  console.log(`vite build: dist/assets/${wasm[0]} (${wasmBytes.length} B), ${chunks.join(', ')}`);

  // vite preview, started directly (no npx, no shell), so that its handle is the server.
  const port = await freePort();
  const server = spawn(process.execPath, [vite, 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { cwd: dir, env: npmEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  let log = '';
  t.after(async () => {
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  });
  const base = `http://127.0.0.1:${port}`;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`vite preview did not start in 30 s:\n${log}`)), 30_000);
    const onData = (chunk) => {
      // Under CI=true vite colours its output, with escapes inside the URL.
      log += stripVTControlCharacters(String(chunk));
      if (log.includes(base)) { clearTimeout(timer); resolve(); }
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    exited.then(({ code, signal }) => { clearTimeout(timer); reject(new Error(`vite preview exited (${code ?? signal}):\n${log}`)); });
  });

  const page = await fetch(`${base}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /^text\/html/);
  assert.match(await page.text(), /<pre id="result">pending<\/pre>/);
  const asset = await fetch(`${base}/assets/${wasm[0]}`);
  assert.equal(asset.status, 200);
  assert.equal(asset.headers.get('content-type'), 'application/wasm');
  assert.ok(Buffer.from(await asset.arrayBuffer()).equals(wasmBytes));
  console.log(`vite preview: ${base}/ 200, /assets/${wasm[0]} 200 ${asset.headers.get('content-type')}`);

  await t.test('the page compacts in headless Chromium', { skip: SKIP_BROWSER && 'SKIP_BROWSER_TESTS=1' }, async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
    try {
      const tab = await browser.newPage();
      // Chromium asks for /favicon.ico, which the app does not have: that 404 is expected.
      const favicon = (url) => new URL(url).pathname === '/favicon.ico';
      const errors = [];
      tab.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
      tab.on('console', (msg) => { if (msg.type() === 'error' && !favicon(msg.location().url || base)) errors.push(`console.error: ${msg.text()}`); });
      tab.on('response', (res) => { if (res.status() >= 400 && !favicon(res.url())) errors.push(`HTTP ${res.status()}: ${res.url()}`); });
      tab.on('requestfailed', (req) => errors.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
      await tab.goto(`${base}/`);
      await tab.waitForFunction(() => document.getElementById('result')?.textContent !== 'pending', null, { timeout: 30_000 });
      const shown = JSON.parse(await tab.textContent('#result'));
      assert.equal(shown.ok, true, shown.error);
      assert.deepEqual(errors, []);
      assert.deepEqual(shown.result, { toolResultsSummarized: 0, toolResultsRedacted: 3, turnsCompacted: 0 });
      assert.ok(shown.tokensAfter < shown.tokensBefore / 2, `${shown.tokensBefore} → ${shown.tokensAfter}`);
      assert.deepEqual(shown.problems, []);
      assert.deepEqual(shown.integration, { sameClass: true, result: 10, redacted: 3 }, 'context-compactor/ai-sdk in the browser');
      // The same figures as the package gives here in Node.
      const { ContextManager, estimateTokens } = await repoPackage();
      const here = new ContextManager({ contextLimit: CONTEXT_LIMIT, compactor: THRESHOLD });
      here.pushMany(conversation());
      const expected = await here.maybeCompact();
      assert.deepEqual([shown.tokensBefore, shown.tokensAfter], [expected.tokensBefore, estimateTokens(here.messages())]);
      here.free();
      console.log(`Chromium: the page compacted ${shown.tokensBefore} → ${shown.tokensAfter} tokens, ${shown.result.toolResultsRedacted} tool results redacted`);
    } finally {
      await browser.close();
    }
  });
});
